/// Writes a ``Bitmap`` as a PNG file, with no dependency but Swift.
///
/// The image data is a zlib stream of *stored* (uncompressed) deflate blocks:
/// every PNG decoder must read them, and writing them needs no compressor.
/// Files are therefore about as large as the raw pixels, which suits small,
/// generated images. Each scanline uses filter type 0 (none).
///
/// Layout (PNG spec, RFC 2083 / ISO 15948): the 8-byte signature, then the
/// chunks `IHDR`, `IDAT`, `IEND`; each chunk is its length (4 bytes, big
/// endian), its type, its data, and a CRC-32 of type and data.
enum PNGEncoder {
    /// The first eight bytes of every PNG file.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The most a stored deflate block can hold (its length field is 16 bits).
    static let maximumStoredBlock = 65_535

    /// The PNG file of `bitmap`.
    static func encode(_ bitmap: Bitmap) -> [UInt8] {
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
        appendChunk("IDAT", zlibStored(scanlines(of: bitmap)), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// The filtered image data: each row preceded by its filter type, 0.
    static func scanlines(of bitmap: Bitmap) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(bitmap.height * (1 + bitmap.width * bitmap.format.bytesPerPixel))
        for y in 0..<bitmap.height {
            data.append(0)
            data += bitmap.row(y)
        }
        return data
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
