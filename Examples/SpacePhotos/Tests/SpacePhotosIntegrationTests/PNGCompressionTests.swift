import BaselineImages
import Foundation
@testable import SpacePhotosServer
import Testing

// Two minutes: this is seconds of plain computation in a debug build, and
// ten times that under ThreadSanitizer (CI's second run).
/// Compressed PNGs from the server's encoder, read back by the real libpng
/// (or ImageIO) through `PNGDecoder`: every pixel must come back as drawn,
/// whatever the content, size and row filters.
@Suite("PNGEncoder: deflate-compressed PNGs decoded by libpng", .timeLimit(.minutes(2)))
struct PNGCompressionTests {
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
                pixels += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), UInt8((x + y) & 0xFF), 200].prefix(format.bytesPerPixel)
            }
        }
        return try Bitmap(width: width, height: height, format: format, pixels: pixels)
    }

    static let samples: [Sample] = {
        do {
            return [
                Sample(label: "flat", bitmap: try Bitmap(width: 1, height: 1, fill: Color(red: 10, green: 20, blue: 30, alpha: 255))),
                Sample(label: "flat", bitmap: try Bitmap(width: 17, height: 9, format: .rgba, fill: Color(red: 200, green: 0, blue: 90, alpha: 128))),
                Sample(label: "noise", bitmap: try noise(width: 1, height: 7, seed: 1)),
                Sample(label: "noise", bitmap: try noise(width: 17, height: 9, format: .rgba, seed: 2)),
                Sample(label: "gradient", bitmap: try gradient(width: 17, height: 9)),
                Sample(label: "gradient", bitmap: try gradient(width: 64, height: 1, format: .rgba)),
                Sample(label: "galaxy", bitmap: try SpaceArt.render(.galaxy, width: 17, height: 9, seed: 5)),
                Sample(label: "nebula", bitmap: try SpaceArt.render(.nebula, width: 320, height: 240, seed: 6)),
            ]
        } catch {
            preconditionFailure("Sample bitmaps have valid sizes: \(error)")
        }
    }()

    /// The bitmap as `PNGDecoder` returns pixels: RGBA, opaque where the bitmap has no alpha.
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

    static func decode(_ file: [UInt8]) throws -> DecodedImage {
        try PNGDecoder().decode(Data(file), limits: ImageDecodingLimits())
    }

    @Test(arguments: samples)
    func everyFilterDecodesToTheSamePixels(sample: Sample) async throws {
        let expected = Self.rgba(sample.bitmap)
        let choices: [PNGEncoder.RowFilters] = [.adaptive] + PNGEncoder.FilterType.allCases.map { .always($0) }
        let bitmap = sample.bitmap
        let images = try await onOwnThread {
            try choices.map { filters in try Self.decode(PNGEncoder.encode(bitmap, compression: .deflate, filters: filters)) }
        }
        for (filters, image) in zip(choices, images) {
            #expect(image.width == sample.bitmap.width && image.height == sample.bitmap.height, "\(filters)")
            #expect(image.pixels == expected, "\(filters)")
        }
    }

    @Test(arguments: SpaceArt.Theme.allCases)
    func theArtDecodesExactly(theme: SpaceArt.Theme) async throws {
        let (bitmap, image) = try await onOwnThread {
            let bitmap = try SpaceArt.render(theme, width: 160, height: 120, seed: 11)
            return (bitmap, try Self.decode(PNGEncoder.encode(bitmap, compression: .deflate)))
        }
        #expect(image.pixels == Self.rgba(bitmap))
    }

    @Test func dataSpanningManyBlocksOfEveryTypeDecodes() async throws {
        // Rows alternate between noise (stored blocks) and a smooth ramp
        // (Huffman-coded ones), in runs long enough to fill many blocks.
        var random = SplitMix64(seed: 12)
        var pixels: [UInt8] = []
        for y in 0..<300 {
            for x in 0..<(256 * 3) {
                pixels.append(y / 50 % 2 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8((x / 3 + y) & 0xFF))
            }
        }
        let bitmap = try Bitmap(width: 256, height: 300, pixels: pixels)
        let image = try await onOwnThread { try Self.decode(PNGEncoder.encode(bitmap, compression: .deflate, filters: .always(.none))) }
        #expect(image.pixels == Self.rgba(bitmap))
    }

    @Test func theImageDataIsAZlibStreamOfTheFilteredRows() throws {
        let bitmap = try SpaceArt.render(.cluster, width: 64, height: 48, seed: 13)
        let png = try PNGInspector(PNGEncoder.encode(bitmap, compression: .deflate))
        #expect(png.chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(png.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
        let header = try #require(png.header)
        #expect(header.width == 64 && header.height == 48 && header.bitDepth == 8 && header.colorType == 2)
        let stream = png.chunks[1].data
        #expect(Array(stream.prefix(2)) == [0x78, 0x9C])
        let filtered = PNGEncoder.filteredScanlines(of: bitmap, filters: .adaptive)
        #expect(PNGInspector.bigEndian(stream, at: stream.count - 4) == PNGInspector.adler32(filtered))
        // Not stored: the hand-written inflater reads only stored blocks.
        #expect(throws: PNGInspector.Failure.self) { try png.imageData() }
    }

    @Test func adaptiveFilteringPicksTheCheapestFilterPerRow() throws {
        func filterTypes(_ bitmap: Bitmap) -> [UInt8] {
            let data = PNGEncoder.filteredScanlines(of: bitmap, filters: .adaptive)
            let rowLength = 1 + bitmap.width * bitmap.format.bytesPerPixel
            return (0..<bitmap.height).map { data[$0 * rowLength] }
        }
        // Flat: the first row is all zeros but its first pixel after Sub
        // (Paeth ties with it and loses); the rows below are zeros after Up.
        let flat = try Bitmap(width: 8, height: 4, fill: Color(red: 90, green: 90, blue: 90, alpha: 255))
        #expect(filterTypes(flat) == [1, 2, 2, 2])
        // Every row the same: Up for every row but the first.
        let columns = try Bitmap(width: 8, height: 3, pixels: (0..<3).flatMap { _ in (0..<24).map { UInt8($0 * 10) } })
        #expect(filterTypes(columns).dropFirst().allSatisfy { $0 == 2 })
        // The art uses several filters, Paeth and Average most.
        let art = Set(filterTypes(try SpaceArt.render(.galaxy, width: 160, height: 120, seed: 14)))
        #expect(art.isSuperset(of: [3, 4]) && art.count >= 3)
        // Stored files keep every row unfiltered.
        #expect(PNGEncoder.filteredScanlines(of: flat, filters: .always(.none)).enumerated().allSatisfy { $0.offset % 25 != 0 || $0.element == 0 })
    }

    @Test func thePaethPredictorBreaksTiesLeftThenAbove() {
        #expect(PNGEncoder.paeth(left: 10, above: 10, upperLeft: 10) == 10)
        // Estimate 30: left is nearest.
        #expect(PNGEncoder.paeth(left: 30, above: 20, upperLeft: 20) == 30)
        // Estimate 20 + 40 − 10 = 50: above (40) is nearest.
        #expect(PNGEncoder.paeth(left: 20, above: 40, upperLeft: 10) == 40)
        // Estimate 100 + 100 − 255 < 0: upper left is farthest, left and above tie; left wins.
        #expect(PNGEncoder.paeth(left: 100, above: 100, upperLeft: 255) == 100)
        // Estimate 0 + 255 − 128 = 127: upper left (128) is nearest.
        #expect(PNGEncoder.paeth(left: 0, above: 255, upperLeft: 128) == 128)
    }

    @Test func theCataloguesSmallPNGsAreUnderHalfTheirStoredSize() async throws {
        // The small ones: debug builds draw and compress large ones slowly.
        let small = ImageCatalog.images.filter { $0.format == .png && $0.width * $0.height <= 480 * 320 }
        #expect(small.count >= 5)
        // The catalogue's files, against the same pixels stored uncompressed.
        let sizes = try await onOwnThread {
            try small.map { image in
                let bitmap = try SpaceArt.render(image.theme, width: image.width, height: image.height, seed: image.seed)
                return (file: try image.render().count, stored: PNGEncoder.encode(bitmap).count)
            }
        }
        for (image, size) in zip(small, sizes) {
            #expect(size.file * 2 < size.stored, "\(image.name)")
        }
    }
}
