import BaselineImages
import Foundation
import Testing

/// libjpeg's handling on Linux of what is particular to JPEG's scans: the
/// limit on their number, data that ends before the last of them, and
/// processes libjpeg does not decode. ImageIO, on Apple platforms, has its
/// own rules for all three.
#if !canImport(ImageIO)
@Suite("JPEG scans", .timeLimit(.minutes(1)))
struct JPEGScanTests {
    let jpeg = JPEGDecoder()
    let limits = ImageDecodingLimits()

    // MARK: The scan limit

    /// many-scans.jpg is progressive.jpg with its second scan repeated: 110
    /// scans in 4 kB (scripts/make-jpeg-fixtures.py).
    @Test func aJPEGWithMoreScansThanTheLimitIsTooLarge() throws {
        let data = try Fixture.data("many-scans.jpg")
        let message = tooLargeMessage { try jpeg.decode(data, limits: limits) }
        #expect(message?.contains("limit of 100") == true)
        #expect(tooLargeMessage { try jpeg.decode(data, limits: limits, maximumPixelSize: 8) } != nil)
        let raised = ImageDecodingLimits(maximumScanCount: 110)
        let image = try jpeg.decode(data, limits: raised)
        #expect(image.width == 32 && image.height == 16)
    }

    /// progressive.jpg has 10 scans: the limit is inclusive.
    @Test func theScanLimitCountsEveryScan() throws {
        let data = try Fixture.data("progressive.jpg")
        #expect(try jpeg.decode(data, limits: ImageDecodingLimits(maximumScanCount: 10)).width == 32)
        #expect(tooLargeMessage { try jpeg.decode(data, limits: ImageDecodingLimits(maximumScanCount: 9)) } != nil)
        // A baseline JPEG is one scan.
        let baseline = try Fixture.data("color.jpg")
        #expect(try jpeg.decode(baseline, limits: ImageDecodingLimits(maximumScanCount: 1)).width == 32)
    }

    // MARK: Data that ends early

    /// progressive.jpg's first scan (the DC coefficients) ends at byte 256,
    /// where the Huffman table of the second begins; its end-of-image marker
    /// is at 537. Cut anywhere before 256, no scan is whole.
    @Test func aProgressiveJPEGCutInItsFirstScanIsCorrupt() throws {
        let data = try Fixture.data("progressive.jpg")
        for length in 3..<256 {
            #expect(corruptMessage { try jpeg.decode(Data(data.prefix(length)), limits: limits) } != nil, "\(length)")
        }
    }

    /// Cut anywhere after the first scan, inside a scan, a Huffman table or
    /// a scan header, the image comes out at full size.
    @Test func aProgressiveJPEGCutAfterItsFirstScanDecodesAtFullSize() throws {
        let data = try Fixture.data("progressive.jpg")
        let whole = try jpeg.decode(data, limits: limits)
        for length in 256..<data.count {
            let image = try jpeg.decode(Data(data.prefix(length)), limits: limits)
            #expect(image.width == 32 && image.height == 16, "\(length)")
            // The DC coefficients alone already give each block's colour
            // (libjpeg's block smoothing blurs the edge between the halves).
            #expect(ThumbnailDecodingTests.meanError(image, whole) < 16, "\(length)")
        }
        // Missing only the end-of-image marker, nothing is missing.
        #expect(try jpeg.decode(Data(data.prefix(537)), limits: limits) == whole)
    }

    /// progressive-512.jpg's scans end at 1471 (the DC scan), 1505, 1539,
    /// 1573, 1607, 1641, 2435, 2469, 2503 and 3275.
    @Test(arguments: [1471, 1480, 1500, 2000, 2440, 3000, 3274])
    func aCutProgressiveJPEGShowsItsWholeScans(_ length: Int) throws {
        let data = try Fixture.data("progressive-512.jpg")
        let whole = try jpeg.decode(data, limits: limits)
        let image = try jpeg.decode(Data(data.prefix(length)), limits: limits)
        #expect(image.width == 512 && image.height == 512)
        #expect(ThumbnailDecodingTests.meanError(image, whole) < 6)
        // A scan that did not arrive whole adds nothing: the image is that of
        // the whole scans before it.
        let scanEnds = [1471, 1505, 1539, 1573, 1607, 1641, 2435, 2469, 2503]
        let lastWholeScan = try #require(scanEnds.last { $0 <= length })
        #expect(image == (try jpeg.decode(Data(data.prefix(lastWholeScan)), limits: limits)))
        // A thumbnail of it too.
        let thumbnail = try jpeg.decode(Data(data.prefix(length)), limits: limits, maximumPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
    }

    @Test(arguments: [226, 240, 700, 1470])
    func aProgressiveJPEGWithNoWholeScanIsCorrupt(_ length: Int) throws {
        let data = Data(try Fixture.data("progressive-512.jpg").prefix(length))
        #expect(corruptMessage { try jpeg.decode(data, limits: limits) } != nil)
        #expect(corruptMessage { try jpeg.decode(data, limits: limits, maximumPixelSize: 64) } != nil)
    }

    /// Baseline JPEGs, one scan each. libjpeg reads ahead of the bits it
    /// needs, so decoding the last blocks of gray.jpg and cmyk.jpg reaches
    /// past the data where the marker is missing; color.jpg's does not.
    @Test(arguments: ["color.jpg", "gray.jpg", "cmyk.jpg"])
    func aBaselineJPEGMissingOnlyItsEndMarkerDecodes(_ name: String) throws {
        let data = try Fixture.data(name)
        let whole = try jpeg.decode(data, limits: limits)
        #expect(try jpeg.decode(Data(data.dropLast(2)), limits: limits) == whole)
        #expect(try jpeg.decode(Data(data.dropLast(1)), limits: limits) == whole)
        // Bytes after the end marker are never read.
        #expect(try jpeg.decode(data + Data(repeating: 0xAB, count: 100), limits: limits) == whole)
    }

    @Test(arguments: [630, 650, 662])
    func aBaselineJPEGCutInItsScanIsCorrupt(_ length: Int) throws {
        let data = Data(try Fixture.data("color.jpg").prefix(length))
        #expect(corruptMessage { try jpeg.decode(data, limits: limits) } != nil)
    }

    // MARK: Processes libjpeg does not decode

    /// An extended-sequential JPEG of 12-bit samples (valid: libjpeg-turbo
    /// 3's 12-bit API decodes it to mid-grey), which the 8-bit API refuses.
    @Test func aTwelveBitJPEGIsUnsupported() throws {
        let data = try Fixture.data("extended-12bit.jpg")
        let unsupported = ImageError.unsupportedImage(mediaType: "image/jpeg")
        #expect(throws: unsupported) { try jpeg.decode(data, limits: limits) }
        #expect(throws: unsupported) { try jpeg.decode(data, limits: limits, maximumPixelSize: 4) }
        let decoders: [any ImageDecoding] = [PNGDecoder(), JPEGDecoder()]
        #expect(throws: unsupported) { try decoders.decode(data, limits: limits) }
    }

    /// A lossless JPEG (SOF3), 8 × 8 of grey 128: libjpeg-turbo 2 refuses
    /// the process; version 3 decodes it. Either way, not corrupt.
    @Test func aLosslessJPEGIsUnsupportedOrDecoded() throws {
        let data = try Fixture.data("lossless.jpg")
        do {
            let image = try jpeg.decode(data, limits: limits)
            #expect(image.width == 8 && image.height == 8)
            #expect(image.pixel(x: 4, y: 4) == RGBA(r: 128, g: 128, b: 128))
        } catch {
            #expect(error as? ImageError == .unsupportedImage(mediaType: "image/jpeg"))
        }
    }
}
#endif
