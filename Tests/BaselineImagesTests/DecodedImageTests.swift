import BaselineImages
import Foundation
import Testing

@Suite("DecodedImage", .timeLimit(.minutes(1)))
struct DecodedImageTests {
    /// A `width` × `height` image where every pixel is `color`.
    func solid(_ color: RGBA, width: Int, height: Int) throws -> DecodedImage {
        try DecodedImage(
            width: width,
            height: height,
            pixels: Array(repeating: [color.r, color.g, color.b, color.a], count: width * height).flatMap { $0 }
        )
    }

    @Test func initChecksThePixelCount() throws {
        #expect(throws: ImageError.self) { try DecodedImage(width: 2, height: 2, pixels: [0, 0, 0]) }
        #expect(throws: ImageError.self) { try DecodedImage(width: -1, height: 2, pixels: []) }
        #expect(throws: ImageError.self) { try DecodedImage(width: .max, height: .max, pixels: []) }
        let image = try DecodedImage(width: 1, height: 1, pixels: [1, 2, 3, 4])
        #expect(image.pixel(x: 0, y: 0) == RGBA(r: 1, g: 2, b: 3, a: 4))
        #expect(image.byteCount == 4)
    }

    @Test func downscalingAveragesTheArea() throws {
        // 4×2 halves: left red, right blue → 2×1 keeps one of each.
        var pixels: [UInt8] = []
        for _ in 0..<2 {
            pixels += [255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255]
        }
        let image = try DecodedImage(width: 4, height: 2, pixels: pixels)
        let half = image.resized(width: 2, height: 1)
        #expect(half.width == 2 && half.height == 1)
        #expect(half.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0))
        #expect(half.pixel(x: 1, y: 0) == RGBA(r: 0, g: 0, b: 255))
        // 1×1 is the mean of all eight.
        #expect(image.resized(width: 1, height: 1).pixel(x: 0, y: 0) == RGBA(r: 128, g: 0, b: 128))
    }

    @Test func fractionalCoverageIsWeighted() throws {
        // Three pixels, black, white, black, into two: each covers 1.5 pixels,
        // one black and half a white.
        let image = try DecodedImage(width: 3, height: 1, pixels: [0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255])
        let resized = image.resized(width: 2, height: 1)
        #expect(resized.pixel(x: 0, y: 0) == RGBA(r: 85, g: 85, b: 85))
        #expect(resized.pixel(x: 1, y: 0) == RGBA(r: 85, g: 85, b: 85))
    }

    @Test func transparentPixelsDoNotDarkenColours() throws {
        // Opaque white next to fully transparent black: the colour stays white, half covered.
        let image = try DecodedImage(width: 2, height: 1, pixels: [255, 255, 255, 255, 0, 0, 0, 0])
        #expect(image.resized(width: 1, height: 1).pixel(x: 0, y: 0) == RGBA(r: 255, g: 255, b: 255, a: 128))
    }

    @Test func upscalingAndDegenerateSizes() throws {
        let image = try solid(RGBA(r: 10, g: 20, b: 30), width: 2, height: 2)
        let big = image.resized(width: 5, height: 3)
        #expect(big.width == 5 && big.height == 3 && big.byteCount == 60)
        #expect(big.pixel(x: 4, y: 2) == RGBA(r: 10, g: 20, b: 30))
        #expect(image.resized(width: 0, height: -3).width == 1)
        #expect(image.resized(width: 2, height: 2) == image)
    }

    @Test func resizesADecodedPhoto() throws {
        let photo = try JPEGDecoder().decode(try Fixture.data("color.jpg"), limits: ImageDecodingLimits())
        let thumbnail = photo.resized(width: 4, height: 2)
        #expect(close(thumbnail.pixel(x: 0, y: 0), RGBA(r: 255, g: 0, b: 0)))
        #expect(close(thumbnail.pixel(x: 3, y: 1), RGBA(r: 0, g: 0, b: 255)))
    }
}
