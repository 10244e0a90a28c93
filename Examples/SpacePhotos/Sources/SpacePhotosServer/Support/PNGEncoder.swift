/// Writes a ``Bitmap`` as a PNG file, with no dependency but Swift.
///
/// Two ways to write the image data, a zlib stream:
/// - ``Compression/stored``: uncompressed deflate blocks and every row
///   unfiltered. Every PNG decoder reads them and a test can inflate them by
///   hand, but files are as large as the raw pixels.
/// - ``Compression/deflate``: each row filtered (PNG filter types 0–4, the
///   one chosen per row by the smallest sum of absolute differences, as the
///   PNG spec suggests) and then compressed by ``Deflate``: the server's
///   space pictures come out at 8–30 % of their raw size, within half a
///   percent of zlib's default level.
///
/// Layout (PNG spec, RFC 2083 / ISO 15948): the 8-byte signature, then the
/// chunks `IHDR`, `IDAT`, `IEND`; each chunk is its length (4 bytes, big
/// endian), its type, its data, and a CRC-32 of type and data.
enum PNGEncoder {
    /// The first eight bytes of every PNG file.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The most a stored deflate block can hold (its length field is 16 bits).
    static let maximumStoredBlock = 65_535

    /// How the image data is written.
    enum Compression: Sendable, Equatable {
        /// Stored blocks, rows unfiltered: large, but readable by eye.
        case stored
        /// Adaptive row filters and deflate compression.
        case deflate
    }

    /// PNG's five row filters (spec §9.2): each byte is stored as its
    /// difference from a prediction made from its neighbours to the left
    /// and above, which turns smooth pictures into runs of small numbers.
    enum FilterType: UInt8, CaseIterable, Sendable {
        case none = 0
        /// The byte one pixel to the left.
        case sub = 1
        /// The byte above.
        case up = 2
        /// The mean of left and above.
        case average = 3
        /// Whichever of left, above and upper left is closest to left + above − upper left.
        case paeth = 4
    }

    /// How each row's filter is chosen.
    enum RowFilters: Sendable, Equatable {
        /// Per row, the filter whose output has the smallest sum of
        /// absolute values (bytes read as signed).
        case adaptive
        /// One filter for every row: for tests.
        case always(FilterType)
    }

    /// The PNG file of `bitmap`. Stored by default, which is what
    /// `/dogs/random` serves and its tests inflate by hand.
    static func encode(_ bitmap: Bitmap, compression: Compression = .stored) -> [UInt8] {
        encode(bitmap, compression: compression, filters: compression == .stored ? .always(.none) : .adaptive)
    }

    /// The PNG file of `bitmap`, with its rows filtered as `filters` says.
    static func encode(_ bitmap: Bitmap, compression: Compression, filters: RowFilters) -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(bitmap.width))
        header.appendBigEndian(UInt32(bitmap.height))
        header += [
            8,                                    // bit depth
            bitmap.format == .rgb ? 2 : 6,        // colour type: truecolour, or truecolour with alpha
            0,                                    // compression: deflate
            0,                                    // filter method: adaptive (type per scanline)
            0,                                    // no interlace
        ]
        var file = signature
        appendChunk("IHDR", header, to: &file)
        let scanlines = filteredScanlines(of: bitmap, filters: filters)
        appendChunk("IDAT", compression == .stored ? zlibStored(scanlines) : Deflate.zlib(scanlines), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// The filtered image data: each row preceded by its filter type.
    static func filteredScanlines(of bitmap: Bitmap, filters: RowFilters) -> [UInt8] {
        let bytesPerPixel = bitmap.format.bytesPerPixel
        let rowLength = bitmap.width * bytesPerPixel
        var data = [UInt8](repeating: 0, count: bitmap.height * (1 + rowLength))
        // One row per filter type, to score them side by side.
        var candidates = [UInt8](repeating: 0, count: filters == .adaptive ? 5 * rowLength : 0)
        // The row "above" the first row is zeros (spec §9.2).
        let zeros = [UInt8](repeating: 0, count: rowLength)
        bitmap.withPixelBytes { pixels in
            zeros.withUnsafeBufferPointer { zeros in
                data.withUnsafeMutableBufferPointer { data in
                    candidates.withUnsafeMutableBufferPointer { candidates in
                        for y in 0..<bitmap.height {
                            let row = UnsafeBufferPointer(rebasing: pixels[(y * rowLength)..<((y + 1) * rowLength)])
                            let above = y == 0 ? zeros : UnsafeBufferPointer(rebasing: pixels[((y - 1) * rowLength)..<(y * rowLength)])
                            let start = y * (1 + rowLength)
                            let output = UnsafeMutableBufferPointer(rebasing: data[(start + 1)..<(start + 1 + rowLength)])
                            switch filters {
                            case .always(let type):
                                data[start] = type.rawValue
                                filter(row, above: above, bytesPerPixel: bytesPerPixel, with: type, into: output)
                            case .adaptive:
                                var best = (type: FilterType.none, score: Int.max)
                                for type in FilterType.allCases {
                                    let candidate = UnsafeMutableBufferPointer(
                                        rebasing: candidates[(Int(type.rawValue) * rowLength)..<((Int(type.rawValue) + 1) * rowLength)]
                                    )
                                    filter(row, above: above, bytesPerPixel: bytesPerPixel, with: type, into: candidate)
                                    var score = 0
                                    for byte in candidate { score += Int(byte < 128 ? byte : 0 &- byte) }
                                    if score < best.score { best = (type, score) }
                                }
                                data[start] = best.type.rawValue
                                let chosen = Int(best.type.rawValue) * rowLength
                                _ = output.update(fromContentsOf: candidates[chosen..<(chosen + rowLength)])
                            }
                        }
                    }
                }
            }
        }
        return data
    }

    /// Writes `row` filtered by `type` into `output`, given the unfiltered row above.
    static func filter(
        _ row: UnsafeBufferPointer<UInt8>, above: UnsafeBufferPointer<UInt8>, bytesPerPixel: Int,
        with type: FilterType, into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        // The first pixel has no left neighbour: the spec takes it as zero.
        let lead = min(bytesPerPixel, row.count)
        switch type {
        case .none:
            _ = output.update(fromContentsOf: row)
        case .sub:
            for i in 0..<lead { output[i] = row[i] }
            for i in lead..<row.count { output[i] = row[i] &- row[i - bytesPerPixel] }
        case .up:
            for i in 0..<row.count { output[i] = row[i] &- above[i] }
        case .average:
            for i in 0..<lead { output[i] = row[i] &- above[i] >> 1 }
            for i in lead..<row.count {
                output[i] = row[i] &- UInt8((UInt16(row[i - bytesPerPixel]) + UInt16(above[i])) >> 1)
            }
        case .paeth:
            // With left and upper left zero, Paeth predicts the byte above.
            for i in 0..<lead { output[i] = row[i] &- above[i] }
            for i in lead..<row.count {
                output[i] = row[i] &- paeth(left: row[i - bytesPerPixel], above: above[i], upperLeft: above[i - bytesPerPixel])
            }
        }
    }

    /// The Paeth predictor (spec §9.4), ties broken left, above, upper left.
    static func paeth(left: UInt8, above: UInt8, upperLeft: UInt8) -> UInt8 {
        let estimate = Int(left) + Int(above) - Int(upperLeft)
        let toLeft = abs(estimate - Int(left))
        let toAbove = abs(estimate - Int(above))
        let toUpperLeft = abs(estimate - Int(upperLeft))
        if toLeft <= toAbove && toLeft <= toUpperLeft { return left }
        return toAbove <= toUpperLeft ? above : upperLeft
    }

    /// A zlib stream (RFC 1950) holding `data` in stored deflate blocks (RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate with a 32 KiB window. FLG 0x01: no dictionary,
        // "fastest" level, and the check bits that make CMF·256+FLG a multiple of 31.
        var stream: [UInt8] = [0x78, 0x01]
        stream.reserveCapacity(data.count + data.count / maximumStoredBlock * 5 + 11)
        var start = 0
        repeat {
            let end = min(start + maximumStoredBlock, data.count)
            let length = UInt16(end - start)
            // The block header is 3 bits (BFINAL, BTYPE 00) padded to a byte,
            // since a stored block's length starts on a byte boundary.
            stream.append(end == data.count ? 1 : 0)
            stream.appendLittleEndian(length)
            stream.appendLittleEndian(~length)
            stream += data[start..<end]
            start = end
        } while start < data.count
        stream.appendBigEndian(Adler32.checksum(data))
        return stream
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        file.appendBigEndian(UInt32(data.count))
        file += typeBytes
        file += data
        var crc = CRC32()
        crc.update(typeBytes)
        crc.update(data)
        file.appendBigEndian(crc.value)
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendLittleEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)])
    }
}
