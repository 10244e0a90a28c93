import BaselineImages
import Foundation
import Testing

@Suite("Orientation", .timeLimit(.minutes(1)))
struct OrientationTests {
    // MARK: Turning pixels

    /// A 3×2 image whose pixels are letters:
    ///
    ///     A B C
    ///     D E F
    static let letters = "ABCDEF".unicodeScalars.map { RGBA(r: UInt8($0.value), g: 0, b: 0) }

    static func image(_ pixels: [RGBA], width: Int) throws -> DecodedImage {
        try DecodedImage(
            width: width,
            height: pixels.count / width,
            pixels: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
        )
    }

    /// The image's rows as text, top first.
    static func rows(_ image: DecodedImage) -> [String] {
        (0..<image.height).map { y in
            String((0..<image.width).map { x in Character(Unicode.Scalar(image.pixel(x: x, y: y).r)) })
        }
    }

    @Test(arguments: [
        (ImageOrientation.up, ["ABC", "DEF"]),
        (.upMirrored, ["CBA", "FED"]),
        (.down, ["FED", "CBA"]),
        (.downMirrored, ["DEF", "ABC"]),
        (.leftMirrored, ["AD", "BE", "CF"]),
        (.right, ["DA", "EB", "FC"]),
        (.rightMirrored, ["FC", "EB", "DA"]),
        (.left, ["CF", "BE", "AD"]),
    ])
    func eachOrientationTurnsThePixelsUpright(_ orientation: ImageOrientation, _ expected: [String]) throws {
        let stored = try Self.image(Self.letters, width: 3)
        let upright = stored.oriented(orientation)
        #expect(Self.rows(upright) == expected)
        #expect(upright.byteCount == stored.byteCount)
        #expect(orientation.swapsDimensions == (upright.width == 2))
    }

    @Test func alphaTravelsWithItsPixel() throws {
        let stored = try Self.image([RGBA(r: 1, g: 2, b: 3, a: 4), RGBA(r: 5, g: 6, b: 7, a: 8)], width: 2)
        let turned = stored.oriented(.right)
        #expect(turned.width == 1 && turned.height == 2)
        #expect(turned.pixel(x: 0, y: 0) == RGBA(r: 1, g: 2, b: 3, a: 4))
        #expect(turned.pixel(x: 0, y: 1) == RGBA(r: 5, g: 6, b: 7, a: 8))
    }

    // MARK: Reading EXIF

    let jpeg = JPEGDecoder()
    let limits = ImageDecodingLimits()

    /// `color.jpg` (32×16: red left half, blue right half) with an EXIF
    /// block recording `orientation`, in either byte order, after its JFIF
    /// segment (as cameras' files have it) or right after the start marker.
    static func photo(
        orientation: UInt16,
        bigEndian: Bool = true,
        type: UInt16 = 3,
        afterJFIF: Bool = true
    ) throws -> Data {
        func bytes(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func bytes(_ value: UInt32) -> [UInt8] {
            bigEndian
                ? bytes(UInt16(value >> 16)) + bytes(UInt16(value & 0xFFFF))
                : bytes(UInt16(value & 0xFFFF)) + bytes(UInt16(value >> 16))
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += bytes(UInt16(42)) + bytes(UInt32(8))
        // One directory with two entries: ImageWidth first, so the reader has to walk.
        tiff += bytes(UInt16(2))
        tiff += bytes(UInt16(0x0100)) + bytes(UInt16(3)) + bytes(UInt32(1)) + bytes(UInt16(32)) + [0, 0]
        tiff += bytes(UInt16(0x0112)) + bytes(type) + bytes(UInt32(1)) + bytes(orientation) + [0, 0]
        tiff += bytes(UInt32(0))
        return try withSegment(Array("Exif".utf8) + [0, 0] + tiff, afterJFIF: afterJFIF)
    }

    /// `color.jpg` with an APP1 segment holding `payload`, after its JFIF
    /// (APP0) segment or right after its start marker.
    static func withSegment(_ payload: [UInt8], afterJFIF: Bool = false) throws -> Data {
        let original = try Fixture.data("color.jpg")
        // The fixture starts FF D8, then FF E0 and the JFIF segment's length.
        let bytes = [UInt8](original)
        #expect(bytes[2] == 0xFF && bytes[3] == 0xE0)
        let insertion = afterJFIF ? 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) : 2
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(bytes[..<insertion] + segment + bytes[insertion...])
    }

    @Test(arguments: [(true, true), (false, true), (true, false)])
    func aPhotoHeldUprightComesOutUpright(bigEndian: Bool, afterJFIF: Bool) throws {
        let image = try jpeg.decode(
            try Self.photo(orientation: 6, bigEndian: bigEndian, afterJFIF: afterJFIF),
            limits: limits
        )
        #expect(image.width == 16 && image.height == 32)
        // Turned clockwise: the stored left (red) half is now on top.
        #expect(close(image.pixel(x: 8, y: 3), RGBA(r: 255, g: 0, b: 0)))
        #expect(close(image.pixel(x: 8, y: 28), RGBA(r: 0, g: 0, b: 255)))
    }

    @Test func theOrientationCanBeLeftAsStored() throws {
        let image = try JPEGDecoder(appliesOrientation: false).decode(try Self.photo(orientation: 6), limits: limits)
        #expect(image.width == 32 && image.height == 16)
        #expect(close(image.pixel(x: 3, y: 8), RGBA(r: 255, g: 0, b: 0)))
    }

    @Test func mirroredPhotosAreFlipped() throws {
        let image = try jpeg.decode(try Self.photo(orientation: 2), limits: limits)
        #expect(image.width == 32 && image.height == 16)
        #expect(close(image.pixel(x: 3, y: 8), RGBA(r: 0, g: 0, b: 255)))
        #expect(close(image.pixel(x: 28, y: 8), RGBA(r: 255, g: 0, b: 0)))
    }

    /// An orientation out of range, of the wrong type, or a block cut short
    /// is ignored: the image decodes as stored.
    @Test(arguments: [
        try photo(orientation: 0),
        try photo(orientation: 9),
        try photo(orientation: 6, type: 4),
        try withSegment(Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 42, 0, 0, 0xFF, 0xFF]),
        try withSegment(Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 42]),
        try withSegment(Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0xFF, 0xFF]),
        try withSegment(Array("Exif".utf8)),
        try withSegment(Array("XMP ".utf8) + [0, 0, 0x4D, 0x4D, 0, 42, 0, 0, 0, 8]),
    ])
    func aDamagedOrForeignBlockIsIgnored(_ data: Data) throws {
        let image = try jpeg.decode(data, limits: limits)
        #expect(image.width == 32 && image.height == 16)
        #expect(close(image.pixel(x: 3, y: 8), RGBA(r: 255, g: 0, b: 0)))
    }

    @Test func randomEXIFBytesNeverCrashTheReader() throws {
        // Seeded, so a failure can be replayed; the header and directory
        // offset are valid in most blocks, so the walk reaches the entries.
        var generator = SplitMix64(seed: 0x5EED)
        for round in 0..<500 {
            var tiff = (0..<Int.random(in: 0..<96, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if tiff.count >= 10, round % 4 != 0 {
                tiff.replaceSubrange(
                    0..<10,
                    with: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, UInt8.random(in: 0...6, using: &generator)]
                )
            }
            let image = try jpeg.decode(
                try Self.withSegment(Array("Exif".utf8) + [0, 0] + tiff, afterJFIF: true),
                limits: limits
            )
            #expect(image.byteCount == 32 * 16 * 4, "round \(round)")
        }
    }
}

/// A small seedable generator (SplitMix64), for reproducible random input.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
