import CLibZ

/// Images that are wrong on purpose, for testing how a client copes:
/// served by `GET /images/{name}` but never listed or picked for a photo.
enum BrokenImages {
    /// `corrupt.png`: a real PNG cut off halfway, as a dropped connection leaves it.
    static let truncatedName = "corrupt.png"
    /// `garbage.jpg`: random bytes that claim to be a JPEG.
    static let garbageName = "garbage.jpg"
    /// `huge.png`: a small file whose header declares 30000×30000 pixels,
    /// for clients that must refuse images too large to decode.
    static let oversizedName = "huge.png"

    static let oversizedSide = 30_000

    /// The first half of a compressed 320×240 star field PNG.
    static func truncatedPNG() throws -> [UInt8] {
        let file = try ImageEncoder.png(SpaceArt.render(.starField, width: 320, height: 240, seed: 0xC0EE))
        return Array(file.prefix(file.count / 2))
    }

    /// 4 KiB of seeded random bytes.
    static func garbage() -> [UInt8] {
        var random = SplitMix64(seed: 0x6A5B)
        return (0..<4_096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// A well-formed PNG header (signature, `IHDR` with correct CRC) that
    /// declares ``oversizedSide`` square, then the first kilobyte of image
    /// data, deflated, and `IEND`: it looks right until a decoder tries to
    /// allocate it.
    ///
    /// Put together chunk by chunk, as libpng will not write a header without
    /// the rows it promises.
    static func oversizedPNG() throws(ImageEncoder.Failure) -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(oversizedSide))
        header.appendBigEndian(UInt32(oversizedSide))
        header += [8, 2, 0, 0, 0]
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        appendChunk("IHDR", header, to: &file)
        appendChunk("IDAT", try deflated([UInt8](repeating: 0, count: 1_024)), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// Appends a PNG chunk: length, type, data and the CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        file.appendBigEndian(UInt32(data.count))
        file += typed
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        file.appendBigEndian(UInt32(truncatingIfNeeded: crc))
    }

    /// `bytes` as a zlib stream.
    private static func deflated(_ bytes: [UInt8]) throws(ImageEncoder.Failure) -> [UInt8] {
        // compressBound is room enough for any input: only memory can run out.
        var length = compressBound(uLong(bytes.count))
        var stream = [UInt8](repeating: 0, count: Int(length))
        let status = stream.withUnsafeMutableBufferPointer { output in
            bytes.withUnsafeBufferPointer { input in
                compress(output.baseAddress, &length, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK else { throw ImageEncoder.Failure(message: "zlib's compress returned \(status)") }
        return Array(stream.prefix(Int(length)))
    }
}

extension [UInt8] {
    /// Appends `value` most significant byte first, as PNG stores numbers.
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }
}
