import BaselineImages
import Foundation
import Testing

/// The pixel values pinned here are libpng's and libjpeg's (Linux). On Apple
/// platforms ImageIO decodes: it draws RGB and grey images in their own
/// colour space, so the same values hold there (unverified: CI has no Apple
/// machine), but it colour-manages CMYK, so that test checks hues there.
@Suite("Decoding", .timeLimit(.minutes(1)))
struct DecodingTests {
    let png = PNGDecoder()
    let jpeg = JPEGDecoder()
    let limits = ImageDecodingLimits()

    // MARK: PNG

    @Test func decodesRGBPNG() throws {
        let image = try png.decode(try Fixture.data("rgb.png"), limits: limits)
        #expect(image.width == 4 && image.height == 2)
        #expect(image.byteCount == 4 * 4 * 2)
        for index in 0..<8 {
            #expect(image.pixel(x: index % 4, y: index / 4) == Fixture.colors[index])
        }
    }

    /// An RGBA file and a palette file with a transparency chunk: both come
    /// out with straight (not premultiplied) alpha.
    @Test(arguments: ["rgba.png", "palette.png"])
    func decodesPNGWithStraightAlpha(_ name: String) throws {
        let image = try png.decode(try Fixture.data(name), limits: limits)
        for index in 0..<8 {
            var expected = Fixture.colors[index]
            expected.a = Fixture.alphas[index]
            let pixel = image.pixel(x: index % 4, y: index / 4)
            #expect(pixel.a == expected.a)
            // A fully transparent pixel has no colour to keep.
            if expected.a > 0 { #expect(pixel == expected) }
        }
    }

    @Test func decodesGrayscalePNG() throws {
        let image = try png.decode(try Fixture.data("gray.png"), limits: limits)
        for index in 0..<8 {
            let value = UInt8(index * 32 + 15)
            #expect(image.pixel(x: index % 4, y: index / 4) == RGBA(r: value, g: value, b: value))
        }
    }

    @Test func decodes16BitPNGTo8Bits() throws {
        let image = try png.decode(try Fixture.data("rgb16.png"), limits: limits)
        for index in 0..<8 {
            #expect(image.pixel(x: index % 4, y: index / 4) == Fixture.colors[index])
        }
    }

    @Test func decodesUntagged16BitPNGAsSRGB() throws {
        // No gAMA or sRGB chunk: 128, 64, 200 and 0, 255, 10 in 16 bits.
        let image = try png.decode(try Fixture.data("rgb16-untagged.png"), limits: limits)
        #expect(image.pixel(x: 0, y: 0) == RGBA(r: 128, g: 64, b: 200))
        #expect(image.pixel(x: 1, y: 0) == RGBA(r: 0, g: 255, b: 10))
    }

    // MARK: JPEG

    @Test(arguments: ["color.jpg", "progressive.jpg"])
    func decodesColourJPEG(_ name: String) throws {
        let image = try jpeg.decode(try Fixture.data(name), limits: limits)
        #expect(image.width == 32 && image.height == 16)
        #expect(close(image.pixel(x: 3, y: 3), RGBA(r: 255, g: 0, b: 0)))
        #expect(close(image.pixel(x: 28, y: 12), RGBA(r: 0, g: 0, b: 255)))
    }

    @Test func decodesGrayscaleJPEG() throws {
        let image = try jpeg.decode(try Fixture.data("gray.jpg"), limits: limits)
        #expect(close(image.pixel(x: 3, y: 3), RGBA(r: 40, g: 40, b: 40), tolerance: 3))
        #expect(close(image.pixel(x: 28, y: 12), RGBA(r: 220, g: 220, b: 220), tolerance: 3))
    }

    @Test func decodesAdobeCMYKJPEG() throws {
        let image = try jpeg.decode(try Fixture.data("cmyk.jpg"), limits: limits)
        #if canImport(ImageIO)
        // ColorSync's CMYK → sRGB: a printed cyan is a duller one on screen.
        let cyan = image.pixel(x: 3, y: 3)
        #expect(cyan.r < 64 && cyan.g > 128 && cyan.b > 192)
        #expect(close(image.pixel(x: 28, y: 12), RGBA(r: 255, g: 255, b: 255), tolerance: 16))
        #else
        // libjpeg's Adobe CMYK, inverted and multiplied out, no colour management.
        #expect(close(image.pixel(x: 3, y: 3), RGBA(r: 0, g: 255, b: 255)))
        #expect(close(image.pixel(x: 28, y: 12), RGBA(r: 255, g: 255, b: 255)))
        #endif
    }

    // MARK: Bad input

    @Test(arguments: [8, 30, 60])
    func truncatedPNGIsCorrupt(_ length: Int) throws {
        let data = try Fixture.data("rgb.png").prefix(length)
        #expect(corruptMessage { try png.decode(Data(data), limits: limits) } != nil)
    }

    @Test func garbageAfterThePNGSignatureIsCorrupt() {
        let data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<200).map { UInt8($0 % 251) })
        #expect(corruptMessage { try png.decode(data, limits: limits) } != nil)
    }

    @Test func aPNGWithABadChecksumIsCorrupt() throws {
        var data = try Fixture.data("rgb.png")
        data[data.count - 20] ^= 0xFF  // inside the image data
        #expect(corruptMessage { try png.decode(data, limits: limits) } != nil)
    }

    /// Cut in the markers, in the tables, and in the entropy-coded data
    /// (color.jpg's scan starts at byte 623; progressive.jpg's first at 239),
    /// where libjpeg only warns and would fill the rest with gray. A
    /// progressive JPEG cut after its first scan decodes: see JPEGScanTests.
    @Test(arguments: [("color.jpg", 3), ("color.jpg", 100), ("color.jpg", 640), ("progressive.jpg", 250)])
    func truncatedJPEGIsCorrupt(_ name: String, _ length: Int) throws {
        let data = Data(try Fixture.data(name).prefix(length))
        let message = corruptMessage { try jpeg.decode(data, limits: limits) }
        #expect(message != nil)
    }

    @Test func garbageAfterTheJPEGSignatureIsCorrupt() {
        let data = Data([0xFF, 0xD8, 0xFF] + (0..<500).map { UInt8(($0 * 37) % 256) })
        #expect(corruptMessage { try jpeg.decode(data, limits: limits) } != nil)
    }

    @Test func hugeDeclaredPNGIsTooLargeBeforeDecoding() {
        // A valid signature and IHDR declaring 100 000 × 100 000 pixels, nothing else.
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8)
        bytes += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        #expect(tooLargeMessage { try png.decode(Data(bytes), limits: limits) }?.contains("100000×100000") == true)
    }

    @Test func hugeDeclaredJPEGIsTooLargeBeforeDecoding() throws {
        // The fixture with its frame header saying 60 000 × 60 000: decoding
        // it would need 14 GB, so only a check before allocating passes.
        var data = try Fixture.data("color.jpg")
        let bytes = [UInt8](data)
        let sof = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        for offset in [sof + 5, sof + 7] {  // height, then width, big-endian
            data[offset] = 0xEA
            data[offset + 1] = 0x60
        }
        #expect(tooLargeMessage { try jpeg.decode(data, limits: limits) }?.contains("60000×60000") == true)
    }

    @Test func pixelLimitApplies() throws {
        let small = ImageDecodingLimits(maximumPixelCount: 7)
        #expect(tooLargeMessage { try png.decode(try Fixture.data("rgb.png"), limits: small) } != nil)
        #expect(tooLargeMessage { try jpeg.decode(try Fixture.data("color.jpg"), limits: small) } != nil)
        #expect(throws: Never.self) {
            try png.decode(try Fixture.data("rgb.png"), limits: ImageDecodingLimits(maximumPixelCount: 8))
        }
    }

    @Test func decodersRecogniseOnlyTheirFormat() throws {
        let pngData = try Fixture.data("rgb.png")
        let jpegData = try Fixture.data("color.jpg")
        #expect(png.canDecode(pngData) && !png.canDecode(jpegData))
        #expect(jpeg.canDecode(jpegData) && !jpeg.canDecode(pngData))
        #expect(throws: ImageError.unsupportedImage(mediaType: nil)) { try png.decode(jpegData, limits: limits) }
        #expect(throws: ImageError.unsupportedImage(mediaType: nil)) { try jpeg.decode(Data(), limits: limits) }
    }

    @Test func sniffsFormats() throws {
        #expect(ImageFormat(sniffing: try Fixture.data("rgb.png")) == .png)
        #expect(ImageFormat(sniffing: try Fixture.data("gray.jpg")) == .jpeg)
        #expect(ImageFormat(sniffing: Data("GIF89a".utf8)) == nil)
        #expect(ImageFormat(sniffing: [UInt8]()) == nil)
        #expect(ImageFormat.png.mediaType == "image/png")
        #expect(ImageFormat.jpeg.mediaType == "image/jpeg")
    }
}

/// The message of the `corruptImage` error `body` throws, or nil (recording
/// an issue) when it throws something else or nothing.
func corruptMessage(_ body: () throws -> DecodedImage) -> String? {
    do {
        _ = try body()
        Issue.record("Expected corruptImage, decoded an image")
    } catch let ImageError.corruptImage(message) {
        return message
    } catch {
        Issue.record("Expected corruptImage, got \(error)")
    }
    return nil
}

/// The message of the `tooLarge` error `body` throws, or nil (recording an issue).
func tooLargeMessage(_ body: () throws -> DecodedImage) -> String? {
    do {
        _ = try body()
        Issue.record("Expected tooLarge, decoded an image")
    } catch let ImageError.tooLarge(message) {
        return message
    } catch {
        Issue.record("Expected tooLarge, got \(error)")
    }
    return nil
}
