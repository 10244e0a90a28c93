import BaselineImages
import Foundation
import Testing

/// 16-bit Adam7-interlaced PNGs, which libpng's simplified API decodes wrong
/// (every other row mixed with stale data), against the same images stored
/// without interlacing.
@Suite("16-bit interlaced PNG", .timeLimit(.minutes(1)))
struct InterlacedPNGTests {
    let png = PNGDecoder()
    let limits = ImageDecodingLimits()

    /// PngSuite's interlaced files and their non-interlaced twins (gAMA 1.0,
    /// so converted to sRGB on the way), then a pair for each 16-bit colour
    /// type and for 16-bit tRNS keys, made by scripts/make-png16-fixtures.py.
    static let pairs = [
        ("basi0g16.png", "basn0g16.png"),
        ("basi2c16.png", "basn2c16.png"),
        ("adam7-0g16.png", "plain-0g16.png"),
        ("adam7-2c16.png", "plain-2c16.png"),
        ("adam7-4a16.png", "plain-4a16.png"),
        ("adam7-6a16.png", "plain-6a16.png"),
        ("adam7-0g16-trns.png", "plain-0g16-trns.png"),
        ("adam7-2c16-trns.png", "plain-2c16-trns.png"),
    ]

    @Test(arguments: pairs)
    func decodesEveryPixelAsTheNonInterlacedImage(_ interlaced: String, _ plain: String) throws {
        let image = try png.decode(try Fixture.data(interlaced), limits: limits)
        let expected = try png.decode(try Fixture.data(plain), limits: limits)
        try #require(image.width == expected.width && image.height == expected.height)
        var differing: [String] = []
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x: x, y: y) != expected.pixel(x: x, y: y) {
                differing.append("(\(x), \(y)): \(image.pixel(x: x, y: y)) for \(expected.pixel(x: x, y: y))")
            }
        }
        #expect(differing.isEmpty, "\(differing.count) pixels differ, first \(differing.prefix(3))")
    }

    /// Pinned against the generator's pixel function, not only the other
    /// decode: the tRNS key (0x1234) is transparent, one more is opaque.
    @Test func aSixteenBitTRNSKeyIsTransparent() throws {
        let image = try png.decode(try Fixture.data("adam7-0g16-trns.png"), limits: limits)
        #expect(image.width == 7 && image.height == 5)
        for y in 0..<5 {
            for x in 0..<7 {
                switch (x + 2 * y) % 5 {
                case 0: #expect(image.pixel(x: x, y: y).a == 0, "(\(x), \(y))")
                case 1: #expect(image.pixel(x: x, y: y) == RGBA(r: 0x12, g: 0x12, b: 0x12), "(\(x), \(y))")
                default: #expect(image.pixel(x: x, y: y).a == 255, "(\(x), \(y))")
                }
            }
        }
    }

    /// 16-bit samples scale to 8 bits by rounding (value × 255 / 65535); the
    /// file has no gAMA chunk, so no gamma conversion: sample (x, y) of the
    /// generator is (7919x + 104729y + 257xy) mod 65536.
    @Test func sixteenBitGreySamplesRoundToEightBits() throws {
        let image = try png.decode(try Fixture.data("adam7-0g16.png"), limits: limits)
        for (x, y) in [(0, 0), (1, 0), (0, 1), (5, 3), (20, 12)] {
            let sample = (x * 7919 + y * 104_729 + x * y * 257) % 65536
            let value = UInt8((sample * 255 + 32767) / 65535)
            #expect(close(image.pixel(x: x, y: y), RGBA(r: value, g: value, b: value), tolerance: 1), "(\(x), \(y))")
        }
    }

    @Test(arguments: [40, 60, 100, 200])
    func aTruncatedInterlacedPNGIsCorrupt(_ length: Int) throws {
        let data = Data(try Fixture.data("adam7-6a16.png").prefix(length))
        #expect(corruptMessage { try png.decode(data, limits: limits) } != nil)
    }

    @Test func anInterlacedPNGWithABadChecksumIsCorrupt() throws {
        var data = try Fixture.data("adam7-6a16.png")
        data[data.count - 20] ^= 0xFF  // inside the image data
        #expect(corruptMessage { try png.decode(data, limits: limits) } != nil)
    }

    @Test func theLimitsApplyToAnInterlacedPNG() throws {
        let data = try Fixture.data("adam7-6a16.png")  // 21 × 13
        #expect(tooLargeMessage { try png.decode(data, limits: ImageDecodingLimits(maximumPixelCount: 272)) } != nil)
        #expect(try png.decode(data, limits: ImageDecodingLimits(maximumPixelCount: 273)).width == 21)
    }
}
