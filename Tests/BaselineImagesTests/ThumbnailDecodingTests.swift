import Foundation
import Testing

@testable import BaselineImages

/// Decoding to a maximum pixel size: JPEGs reduced by libjpeg's DCT scaling
/// on the way in, other formats decoded whole and then shrunk.
@Suite("Decoding thumbnails", .timeLimit(.minutes(1)))
struct ThumbnailDecodingTests {
    static let jpegs = ["color.jpg", "gray.jpg", "cmyk.jpg", "progressive.jpg"]

    /// The mean absolute difference of two same-sized images' colour channels.
    static func meanError(_ image: DecodedImage, _ other: DecodedImage) -> Double {
        var total = 0
        for offset in stride(from: 0, to: image.pixels.count, by: 4) {
            for channel in 0..<3 {
                total += abs(Int(image.pixels[offset + channel]) - Int(other.pixels[offset + channel]))
            }
        }
        return Double(total) / Double(image.pixels.count / 4 * 3)
    }

    @Test(arguments: [
        (2400, 1600, 300, 8), (2400, 1600, 301, 4), (2400, 1600, 600, 4), (2400, 1600, 601, 2),
        (1600, 2400, 1200, 2), (1600, 2400, 1201, 1), (2400, 1600, 5000, 1),
        (32, 16, 4, 8), (32, 16, 5, 4), (33, 16, 5, 8),  // libjpeg rounds up: 33 / 8 → 5
    ])
    func theScaleIsTheSmallestThatStillCoversTheSize(width: Int, height: Int, size: Int, denominator: Int) {
        #expect(JPEGDecoder.scaleDenominator(width: width, height: height, maximumPixelSize: size) == denominator)
    }

    @Test func withoutASizeTheScaleIsFull() {
        #expect(JPEGDecoder.scaleDenominator(width: 2400, height: 1600, maximumPixelSize: nil) == 1)
    }

    @Test(arguments: jpegs)
    func aJPEGThumbnailHasTheAskedSizeAndTheImagesColours(name: String) throws {
        let data = try Fixture.data(name)
        let full = try JPEGDecoder().decode(data, limits: ImageDecodingLimits())
        // 1/8, 1/4 and 1/2 scale, one between scales, and sizes the image already fits.
        for (size, width, height) in [(4, 4, 2), (8, 8, 4), (16, 16, 8), (12, 12, 6), (32, 32, 16), (100, 32, 16)] {
            let thumbnail = try JPEGDecoder().decode(data, limits: ImageDecodingLimits(), maximumPixelSize: size)
            #expect(thumbnail.width == width && thumbnail.height == height, "\(name) at \(size)")
            // libjpeg's scaling averages in the DCT, the resizer in pixels: close, not equal.
            let error = Self.meanError(thumbnail, full.resized(width: width, height: height))
            #expect(error < 6, "\(name) at \(size): mean error \(error)")
        }
    }

    // Linux only: ImageIO decodes whole on Apple platforms, so the limits
    // apply to the full size there.
    #if !canImport(ImageIO)
    @Test func limitsApplyToTheScaledSize() throws {
        let data = try Fixture.data("color.jpg")
        let limits = ImageDecodingLimits(maximumPixelCount: 100)
        #expect(throws: ImageError.self) { try JPEGDecoder().decode(data, limits: limits) }
        let thumbnail = try JPEGDecoder().decode(data, limits: limits, maximumPixelSize: 8)
        #expect(thumbnail.width * thumbnail.height == 32)
    }

    @Test func aProgressiveJPEGTooLargeToHoldWholeIsRefusedEvenAsAThumbnail() throws {
        // A progressive file keeps the whole image's coefficients, whatever
        // the scale: libjpeg's working memory counts against the limits.
        // progressive-512.jpg is 512×512 (3 kB); its 64-pixel thumbnail has
        // 4,096 pixels, within a 5,000-pixel limit, but holding the file's
        // coefficients takes 1.5 MB, more than that limit's 40 kB budget.
        let limits = ImageDecodingLimits(maximumPixelCount: 5_000)
        let progressive = try Fixture.data("progressive-512.jpg")
        #expect {
            try JPEGDecoder().decode(progressive, limits: limits, maximumPixelSize: 64)
        } throws: { error in
            if case .tooLarge = error as? ImageError { true } else { false }
        }
        // Within the default limits it decodes, whole or as a thumbnail.
        let thumbnail = try JPEGDecoder().decode(progressive, limits: ImageDecodingLimits(), maximumPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
        #expect(close(thumbnail.pixel(x: 0, y: 0), RGBA(r: 255, g: 0, b: 0), tolerance: 12))
        #expect(try JPEGDecoder().decode(progressive, limits: ImageDecodingLimits()).width == 512)
        // A baseline file needs no such memory: its thumbnail fits a tiny limit.
        let baseline = try JPEGDecoder().decode(
            Fixture.data("color.jpg"),
            limits: ImageDecodingLimits(maximumPixelCount: 8),
            maximumPixelSize: 4
        )
        #expect(baseline.width == 4 && baseline.height == 2)
    }
    #endif

    @Test(arguments: ["rgb.png", "palette.png", "gray.png"])
    func otherFormatsAreDecodedWholeThenShrunk(name: String) throws {
        let data = try Fixture.data(name)
        let decoders = ImagePipeline.Configuration().decoders
        let thumbnail = try decoders.decode(data, limits: ImageDecodingLimits(), maximumPixelSize: 2)
        let expected = try decoders.decode(data, limits: ImageDecodingLimits()).resized(toFit: 2)
        #expect(thumbnail == expected)
        #expect(thumbnail.width == 2 && thumbnail.height == 1)
    }

    @Test func theDecoderListPassesTheSizeToTheJPEGDecoder() throws {
        let data = try Fixture.data("color.jpg")
        let thumbnail = try ImagePipeline.Configuration().decoders.decode(
            data,
            limits: ImageDecodingLimits(),
            maximumPixelSize: 8
        )
        #expect(thumbnail.width == 8 && thumbnail.height == 4)
    }

    @Test(arguments: [
        (30, 20, 3, 3, 2), (20, 30, 3, 2, 3), (1, 100, 10, 1, 10), (100, 1, 10, 10, 1), (64, 48, 0, 1, 1),
    ])
    func resizingToFitKeepsTheAspectRatio(width: Int, height: Int, size: Int, fitWidth: Int, fitHeight: Int) throws {
        let image = try DecodedImage(
            width: width,
            height: height,
            pixels: [UInt8](repeating: 200, count: width * height * 4)
        )
        let fitted = image.resized(toFit: size)
        #expect(fitted.width == fitWidth && fitted.height == fitHeight)
        #expect(fitted.pixels.allSatisfy { $0 == 200 })
    }

    @Test func anImageThatFitsIsReturnedAsItIs() throws {
        let image = try DecodedImage(width: 4, height: 2, pixels: Array(0..<32))
        #expect(image.resized(toFit: 4) == image)
        #expect(image.resized(toFit: 400) == image)
    }
}

@Suite("Image processors", .timeLimit(.minutes(1)))
struct ImageProcessorTests {
    /// A 4×2 image whose pixel (x, y) has red = 10x + y.
    static func grid() throws -> DecodedImage {
        let pixels: [UInt8] = (0..<2).flatMap { y in (0..<4).flatMap { x -> [UInt8] in [UInt8(10 * x + y), 0, 0, 255] }
        }
        return try DecodedImage(width: 4, height: 2, pixels: pixels)
    }

    @Test func cropKeepsTheRectangleCutToTheBounds() throws {
        let image = try Self.grid()
        let cropped = image.cropped(x: 1, y: 1, width: 2, height: 5)
        #expect(cropped.width == 2 && cropped.height == 1)
        #expect(cropped.pixel(x: 0, y: 0).r == 11 && cropped.pixel(x: 1, y: 0).r == 21)
        #expect(image.cropped(x: -3, y: -3, width: 100, height: 100) == image)
        #expect(image.cropped(x: 1, y: 0, width: .max, height: .max).width == 3)
        #expect(image.cropped(x: .min, y: .min, width: .max, height: 1).width == 1)
        let outside = image.cropped(x: 9, y: 0, width: 2, height: 2)
        #expect(outside.width == 1 && outside.height == 1 && outside.pixel(x: 0, y: 0).a == 0)
    }

    @Test func aSquareCropIsCentred() throws {
        let square = ImageProcessor.cropToSquare(try Self.grid())
        #expect(square.width == 2 && square.height == 2)
        #expect(square.pixel(x: 0, y: 0).r == 10 && square.pixel(x: 1, y: 1).r == 21)
    }

    @Test func identifiersNameTheParameters() {
        #expect(ImageProcessor.resize(width: 64, height: 32).identifier == "resize(64×32)")
        #expect(ImageProcessor.resize(toFit: 100).identifier != ImageProcessor.resize(toFit: 200).identifier)
        #expect(ImageProcessor.crop(x: 1, y: 2, width: 3, height: 4).identifier == "crop(1,2 3×4)")
    }
}
