@testable import SpacePhotosServer
import Testing

/// The server's own baseline JPEG encoder, checked against T.81: the file's
/// structure, its tables and, for images simple enough to work out by hand,
/// the exact entropy-coded bits. (A decode through libjpeg comes with the
/// BaselineImages module.)
@Suite("JPEGEncoder: baseline JFIF files", .timeLimit(.minutes(1)))
struct JPEGEncoderTests {
    static func noise(width: Int, height: Int, seed: UInt64) throws -> Bitmap {
        var random = SplitMix64(seed: seed)
        let pixels = (0..<(width * height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    @Test func aFileHasTheBaselineMarkersInOrder() throws {
        let file = JPEGEncoder.encode(try SpaceArt.render(.galaxy, width: 64, height: 48, seed: 7))
        let jpeg = try JPEGInspector(file)
        // SOI, APP0, DQT, SOF0, DHT, SOS, EOI.
        #expect(jpeg.markers == [0xD8, 0xE0, 0xDB, 0xC0, 0xC4, 0xDA, 0xD9])
        #expect(Array(jpeg.segments[1].payload.prefix(7)) == [0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01])  // "JFIF\0" 1.01
        #expect(jpeg.isByteStuffed)
    }

    @Test(arguments: [(1, 1), (17, 9), (64, 48), (333, 17)])
    func theFrameHeaderStatesTheSize(width: Int, height: Int) throws {
        let bitmap = try Self.noise(width: width, height: height, seed: UInt64(width * height))
        for (chroma, lumaSampling) in [(JPEGEncoder.ChromaSubsampling.half, UInt8(0x22)), (.none, 0x11)] {
            let jpeg = try JPEGInspector(JPEGEncoder.encode(bitmap, chroma: chroma))
            let frame = try #require(jpeg.frame)
            #expect(frame.width == width)
            #expect(frame.height == height)
            #expect(frame.components.map(\.id) == [1, 2, 3])
            #expect(frame.components.map(\.sampling) == [lumaSampling, 0x11, 0x11])
            #expect(jpeg.isByteStuffed)
        }
    }

    @Test func everyFFInTheScanIsStuffed() throws {
        // Noise gives long codes and many 0xFF bytes to stuff.
        let file = JPEGEncoder.encode(try Self.noise(width: 96, height: 96, seed: 1), quality: 100)
        let jpeg = try JPEGInspector(file)
        #expect(jpeg.scanData.contains(0xFF))
        #expect(jpeg.isByteStuffed)
        // No stray markers inside the scan.
        #expect(zip(jpeg.scanData, jpeg.scanData.dropFirst()).allSatisfy { $0 != 0xFF || $1 == 0x00 })
    }

    @Test func theQuantisationTablesAreAnnexKScaledByQuality() throws {
        func tables(quality: Int) throws -> [UInt8] {
            let bitmap = try Bitmap(width: 8, height: 8)
            return try #require(JPEGInspector(JPEGEncoder.encode(bitmap, quality: quality)).segments.first { $0.marker == 0xDB }).payload
        }
        // Quality 50 is the tables themselves, in zigzag order after each table's id byte.
        let fifty = try tables(quality: 50)
        #expect(fifty.count == 2 * 65)
        #expect(fifty[0] == 0 && fifty[65] == 1)
        #expect(Array(fifty[1...8]) == [16, 11, 12, 14, 12, 10, 16, 14])
        #expect(Array(fifty[66...69]) == [17, 18, 18, 24])
        // Quality 100 is all ones; quality 85 is 30% of the table, rounded.
        #expect(try tables(quality: 100).enumerated().allSatisfy { $0.offset % 65 == 0 || $0.element == 1 })
        #expect(try tables(quality: 85)[1] == 5)  // (16·30 + 50) / 100
    }

    @Test func theStandardHuffmanCodesAreDerivedAsAnnexCSays() {
        let dc = JPEGEncoder.HuffmanSpec.luminanceDC.codes()
        #expect(dc[0].bits == 0b00 && dc[0].length == 2)
        #expect(dc[1].bits == 0b010 && dc[1].length == 3)
        #expect(dc[11].bits == 0b1_1111_1110 && dc[11].length == 9)
        let ac = JPEGEncoder.HuffmanSpec.luminanceAC.codes()
        #expect(ac[0x00].bits == 0b1010 && ac[0x00].length == 4)                // EOB
        #expect(ac[0x01].bits == 0b00 && ac[0x01].length == 2)
        #expect(ac[0xF0].bits == 0b111_1111_1001 && ac[0xF0].length == 11)     // ZRL
        #expect(ac[0xFA].bits == 0xFFFE && ac[0xFA].length == 16)
        let chromaAC = JPEGEncoder.HuffmanSpec.chrominanceAC.codes()
        #expect(chromaAC[0x00].bits == 0b00 && chromaAC[0x00].length == 2)     // EOB
    }

    @Test func magnitudesAreCodedAsT81Table5() {
        #expect(JPEGEncoder.magnitudeSize(0) == 0)
        #expect(JPEGEncoder.magnitudeSize(1) == 1 && JPEGEncoder.magnitudeSize(-1) == 1)
        #expect(JPEGEncoder.magnitudeSize(255) == 8 && JPEGEncoder.magnitudeSize(-1_024) == 11)
        #expect(JPEGEncoder.magnitudeBits(3, size: 2) == 0b11)
        #expect(JPEGEncoder.magnitudeBits(-3, size: 2) == 0b00)
        #expect(JPEGEncoder.magnitudeBits(-1, size: 1) == 0b0)
        #expect(JPEGEncoder.magnitudeBits(-6, size: 3) == 0b001)
    }

    @Test func theBitWriterStuffsAndPadsWithOnes() {
        var writer = JPEGEncoder.BitWriter(capacity: 4)
        writer.write(0xFF, count: 8)
        writer.write(0b0, count: 1)
        writer.flush()
        #expect(writer.bytes == [0xFF, 0x00, 0x7F])
    }

    @Test func aFlatGreyBlockIsCodedBitForBit() throws {
        // Grey 128 is 0 after the level shift in all three components: every
        // coefficient is 0, so each block is "DC difference 0" then EOB.
        // Y: 00 1010, Cb: 00 00, Cr: 00 00, padded with ones: 0010 1000 0000 0011.
        let grey = try Bitmap(width: 8, height: 8, fill: Color(red: 128, green: 128, blue: 128))
        let jpeg = try JPEGInspector(JPEGEncoder.encode(grey, chroma: .none))
        #expect(jpeg.scanData == [0x28, 0x03])
    }
}
