import BaselineImages
import Foundation
import Testing

@testable import SpacePhotosServer

/// The server's PNG and JPEG files (libpng and libjpeg-turbo through
/// `CImageEncoding`), read back by BaselineImages' decoders and checked
/// chunk by chunk and marker by marker against the specs.
// Two minutes: drawing is seconds of plain computation in a debug build, and
// ten times that under ThreadSanitizer (CI's second run).
@Suite("ImageEncoder: PNG and JPEG files the decoders read back", .timeLimit(.minutes(2)))
struct ImageEncoderTests {
    /// A bitmap and what it is, for test names.
    struct Sample: CustomTestStringConvertible, Sendable {
        var label: String
        var bitmap: Bitmap
        var testDescription: String { "\(label) \(bitmap.width)×\(bitmap.height) \(bitmap.format)" }
    }

    static func noise(width: Int, height: Int, format: Bitmap.Format = .rgb, seed: UInt64) throws -> Bitmap {
        var random = SplitMix64(seed: seed)
        let pixels = (0..<(width * height * format.bytesPerPixel)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return try Bitmap(width: width, height: height, format: format, pixels: pixels)
    }

    static func gradient(width: Int, height: Int, format: Bitmap.Format = .rgb) throws -> Bitmap {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let pixel = [
                    UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), UInt8((x + y) & 0xFF), 200,
                ]
                pixels += pixel.prefix(format.bytesPerPixel)
            }
        }
        return try Bitmap(width: width, height: height, format: format, pixels: pixels)
    }

    static let samples: [Sample] = {
        do {
            return [
                Sample(
                    label: "flat",
                    bitmap: try Bitmap(width: 1, height: 1, fill: Color(red: 10, green: 20, blue: 30, alpha: 255))
                ),
                Sample(
                    label: "flat",
                    bitmap: try Bitmap(
                        width: 17,
                        height: 9,
                        format: .rgba,
                        fill: Color(red: 200, green: 0, blue: 90, alpha: 128)
                    )
                ),
                Sample(label: "noise", bitmap: try noise(width: 1, height: 7, seed: 1)),
                Sample(label: "noise", bitmap: try noise(width: 17, height: 9, format: .rgba, seed: 2)),
                Sample(label: "gradient", bitmap: try gradient(width: 64, height: 1, format: .rgba)),
                Sample(label: "nebula", bitmap: try SpaceArt.render(.nebula, width: 320, height: 240, seed: 6)),
            ]
        } catch {
            preconditionFailure("Sample bitmaps have valid sizes: \(error)")
        }
    }()

    /// The bitmap as the decoders return pixels: RGBA, opaque where the bitmap has no alpha.
    static func rgba(_ bitmap: Bitmap) -> [UInt8] {
        bitmap.withPixelBytes { bytes in
            guard bitmap.format == .rgb else { return Array(bytes) }
            var pixels: [UInt8] = []
            pixels.reserveCapacity(bitmap.width * bitmap.height * 4)
            for offset in stride(from: 0, to: bytes.count, by: 3) {
                pixels += [bytes[offset], bytes[offset + 1], bytes[offset + 2], 255]
            }
            return pixels
        }
    }

    /// The mean absolute difference of the colour channels, 0…255.
    static func meanColourError(_ image: DecodedImage, _ bitmap: Bitmap) -> Double {
        let expected = rgba(bitmap)
        var total = 0
        for offset in stride(from: 0, to: expected.count, by: 4) {
            for channel in 0..<3 { total += abs(Int(image.pixels[offset + channel]) - Int(expected[offset + channel])) }
        }
        return Double(total) / Double(expected.count / 4 * 3)
    }

    // MARK: PNG

    @Test(arguments: samples)
    func aPNGDecodesToTheSamePixelsAtEveryCompressionLevel(sample: Sample) async throws {
        let bitmap = sample.bitmap
        let levels = [0, 1, ImageEncoder.defaultPNGCompression, 9]
        let images = try await onOwnThread {
            try levels.map { level in
                try PNGDecoder().decode(
                    Data(ImageEncoder.png(bitmap, compressionLevel: level)),
                    limits: ImageDecodingLimits()
                )
            }
        }
        for (level, image) in zip(levels, images) {
            #expect(image.width == bitmap.width && image.height == bitmap.height, "level \(level)")
            #expect(image.pixels == Self.rgba(bitmap), "level \(level)")
        }
    }

    @Test(arguments: SpaceArt.Theme.allCases)
    func theArtDecodesExactly(theme: SpaceArt.Theme) async throws {
        let (bitmap, file) = try await onOwnThread {
            let bitmap = try SpaceArt.render(theme, width: 160, height: 120, seed: 11)
            return (bitmap, try ImageEncoder.png(bitmap))
        }
        #expect(try PNGDecoder().decode(Data(file), limits: ImageDecodingLimits()).pixels == Self.rgba(bitmap))
    }

    @Test(arguments: [(Bitmap.Format.rgb, 2), (.rgba, 6)])
    func aPNGHasTheSpecsChunksWithRightCRCs(format: Bitmap.Format, colorType: Int) throws {
        let png = try PNGInspector(ImageEncoder.png(Self.gradient(width: 64, height: 48, format: format)))
        #expect(png.chunks.first?.type == "IHDR" && png.chunks.last?.type == "IEND")
        #expect(png.chunks.contains { $0.type == "IDAT" })
        #expect(png.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
        let header = try #require(png.header)
        #expect(header.width == 64 && header.height == 48 && header.bitDepth == 8 && header.colorType == colorType)
    }

    @Test func theCataloguesSmallPNGsAreUnderHalfTheirStoredSize() async throws {
        // The small ones: debug builds draw large ones slowly.
        let small = ImageCatalog.images.filter { $0.format == .png && $0.width * $0.height <= 480 * 320 }
        #expect(small.count >= 5)
        // The catalogue's files, against the same pixels stored uncompressed.
        let sizes = try await onOwnThread {
            try small.map { image in
                let bitmap = try SpaceArt.render(
                    image.theme,
                    width: image.width,
                    height: image.height,
                    seed: image.seed
                )
                return (file: try image.render().count, stored: try ImageEncoder.png(bitmap, compressionLevel: 0).count)
            }
        }
        for (image, size) in zip(small, sizes) {
            #expect(size.file * 2 < size.stored, "\(image.name)")
            // Stored: the pixels, a filter byte a row, and a few hundred bytes of framing.
            #expect(size.stored >= image.height * (1 + image.width * 3), "\(image.name)")
        }
    }

    // MARK: JPEG

    @Test func aJPEGHasTheBaselineMarkersAndTheFrameStatesTheSize() throws {
        for (width, height) in [(1, 1), (17, 9), (333, 17)] {
            let bitmap = try Self.noise(width: width, height: height, seed: UInt64(width * height))
            for (chroma, lumaSampling) in [(ImageEncoder.ChromaSubsampling.half, UInt8(0x22)), (.none, 0x11)] {
                let jpeg = try JPEGInspector(ImageEncoder.jpeg(bitmap, chroma: chroma))
                // SOI, APP0 (JFIF), then tables and a baseline frame before the scan.
                #expect(Array(jpeg.markers.prefix(2)) == [0xD8, 0xE0])
                #expect(jpeg.markers.contains(0xC0) && jpeg.markers.contains(0xDB) && jpeg.markers.contains(0xC4))
                #expect(jpeg.markers.suffix(2) == [0xDA, 0xD9])
                let frame = try #require(jpeg.frame)
                #expect(frame.width == width && frame.height == height)
                #expect(frame.components.map(\.id) == [1, 2, 3])
                #expect(frame.components.map(\.sampling) == [lumaSampling, 0x11, 0x11])
                #expect(jpeg.isByteStuffed)
            }
        }
    }

    @Test(arguments: SpaceArt.Theme.allCases)
    func theArtDecodesCloseToWhatWasDrawn(theme: SpaceArt.Theme) async throws {
        let (bitmap, file) = try await onOwnThread {
            let bitmap = try SpaceArt.render(theme, width: 160, height: 120, seed: 12)
            return (bitmap, try ImageEncoder.jpeg(bitmap, quality: CatalogImage.jpegQuality))
        }
        let image = try JPEGDecoder().decode(Data(file), limits: ImageDecodingLimits())
        #expect(image.width == 160 && image.height == 120)
        // Lossy, but close: at quality 85 the art's mean error is a few levels.
        let error = Self.meanColourError(image, bitmap)
        #expect(error < 6, "mean error \(error)")
        #expect(file.count < 160 * 120 * 3 / 4)
    }

    @Test func higherQualityKeepsMoreAndCostsMore() throws {
        let bitmap = try Self.gradient(width: 96, height: 64)
        let qualities = [20, 60, 95]
        let files = try qualities.map { try ImageEncoder.jpeg(bitmap, quality: $0, chroma: .none) }
        #expect(files[0].count < files[1].count && files[1].count < files[2].count)
        let errors = try files.map {
            Self.meanColourError(try JPEGDecoder().decode(Data($0), limits: ImageDecodingLimits()), bitmap)
        }
        #expect(errors[0] > errors[1] && errors[1] > errors[2])
        // Out-of-range qualities are clamped, not refused.
        #expect(
            try ImageEncoder.jpeg(bitmap, quality: 500, chroma: .none)
                == ImageEncoder.jpeg(bitmap, quality: 100, chroma: .none)
        )
        #expect(
            try ImageEncoder.jpeg(bitmap, quality: -3, chroma: .none)
                == ImageEncoder.jpeg(bitmap, quality: 1, chroma: .none)
        )
    }

    @Test func aJPEGOfAnRGBABitmapDropsTheAlpha() throws {
        let colour = Color(red: 30, green: 140, blue: 220, alpha: 40)
        let image = try JPEGDecoder().decode(
            Data(
                ImageEncoder.jpeg(
                    Bitmap(width: 16, height: 16, format: .rgba, fill: colour),
                    quality: 95,
                    chroma: .none
                )
            ),
            limits: ImageDecodingLimits()
        )
        for offset in stride(from: 0, to: image.pixels.count, by: 4) {
            #expect(abs(Int(image.pixels[offset]) - 30) <= 2 && abs(Int(image.pixels[offset + 1]) - 140) <= 2)
            #expect(abs(Int(image.pixels[offset + 2]) - 220) <= 2 && image.pixels[offset + 3] == 255)
        }
    }

    @Test func encodingIsDeterministic() throws {
        // The ETags name the content: the same pixels must make the same bytes.
        let bitmap = try SpaceArt.render(.cluster, width: 64, height: 48, seed: 13)
        #expect(try ImageEncoder.png(bitmap) == ImageEncoder.png(bitmap))
        #expect(try ImageEncoder.jpeg(bitmap) == ImageEncoder.jpeg(bitmap))
    }
}
