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
    static func truncatedPNG() throws(Bitmap.Failure) -> [UInt8] {
        let file = PNGEncoder.encode(try SpaceArt.render(.starField, width: 320, height: 240, seed: 0xC0EE), compression: .deflate)
        return Array(file.prefix(file.count / 2))
    }

    /// 4 KiB of seeded random bytes.
    static func garbage() -> [UInt8] {
        var random = SplitMix64(seed: 0x6A5B)
        return (0..<4_096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// A well-formed PNG header (signature, `IHDR` with correct CRC) that
    /// declares ``oversizedSide`` square, then one stored row of image data
    /// and `IEND`: it looks right until a decoder tries to allocate it.
    static func oversizedPNG() -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(oversizedSide))
        header.appendBigEndian(UInt32(oversizedSide))
        header += [8, 2, 0, 0, 0]
        var file = PNGEncoder.signature
        PNGEncoder.appendChunk("IHDR", header, to: &file)
        PNGEncoder.appendChunk("IDAT", PNGEncoder.zlibStored([UInt8](repeating: 0, count: 1_024)), to: &file)
        PNGEncoder.appendChunk("IEND", [], to: &file)
        return file
    }
}
