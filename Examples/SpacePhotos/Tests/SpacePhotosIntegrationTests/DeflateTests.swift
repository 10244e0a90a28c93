@testable import SpacePhotosServer
import Testing

/// The server's deflate compressor at the zlib level: the stream's header
/// and checksum, the three block types, and the Huffman codes it builds.
/// (That the streams inflate to the input is checked through libpng, in
/// ``PNGCompressionTests``.)
@Suite("Deflate: zlib streams and Huffman codes", .timeLimit(.minutes(1)))
struct DeflateTests {
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static let text = Array(String(repeating: "Pillars of creation, pillars of dust. ", count: 200).utf8)

    @Test(arguments: [[], [42], Array("abc".utf8), DeflateTests.text, DeflateTests.noise(count: 70_000, seed: 3)])
    func aStreamHasTheZlibHeaderAndEndsWithTheAdler32OfTheInput(input: [UInt8]) {
        let stream = Deflate.zlib(input)
        // CMF: deflate (8) with a 32 KiB window (7); FLG: no preset dictionary.
        #expect(stream[0] == 0x78)
        #expect(stream[1] & 0x20 == 0)
        #expect((Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0)
        #expect(PNGInspector.bigEndian(stream, at: stream.count - 4) == PNGInspector.adler32(input))
    }

    /// BTYPE, the two bits after BFINAL in the first block's header.
    static func firstBlockType(_ stream: [UInt8]) -> Int { Int(stream[2] >> 1 & 0b11) }

    @Test func eachBlockTypeIsChosenWhereItIsSmallest() {
        // Too little data to pay for a dynamic header: fixed codes.
        #expect(Self.firstBlockType(Deflate.zlib(Array("abc".utf8))) == 1)
        #expect(Self.firstBlockType(Deflate.zlib([])) == 1)
        // Skewed, repetitive data: codes built for it.
        #expect(Self.firstBlockType(Deflate.zlib(Self.text)) == 2)
        // Noise does not compress: stored, costing 5 bytes a block.
        let noise = Self.noise(count: 70_000, seed: 4)
        let stream = Deflate.zlib(noise)
        #expect(Self.firstBlockType(stream) == 0)
        #expect(stream.count <= noise.count + 2 + 4 + 5 * (noise.count / Deflate.blockTokens + 1))
    }

    @Test func repetitiveDataShrinksALot() {
        #expect(Deflate.zlib(Self.text).count < Self.text.count / 10)
        let zeros = [UInt8](repeating: 0, count: 100_000)
        // 258-byte matches at distance 1: about two bits each, fixed or dynamic.
        #expect(Deflate.zlib(zeros).count < 200)
    }

    @Test func theCodesOfRFC1951Section3_2_2AreDerivedFromTheLengths() {
        // A–H with lengths 3,3,3,3,3,2,4,4 → 010, 011, 100, 101, 110, 00, 1110, 1111;
        // stored bit-reversed, as deflate sends them.
        let code = HuffmanCode(lengths: [3, 3, 3, 3, 3, 2, 4, 4])
        #expect(code.codes == [0b010, 0b110, 0b001, 0b101, 0b011, 0b00, 0b0111, 0b1111])
    }

    @Test func lengthsAreCompleteAndLimited() {
        // Fibonacci frequencies make Huffman's deepest tree: 25 bits for 26 symbols.
        var fibonacci = [1, 1]
        while fibonacci.count < 26 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        let limited = HuffmanCode.lengths(for: fibonacci, limit: 15)
        #expect(limited.allSatisfy { (1...15).contains($0) })
        #expect(HuffmanCode.lengths(for: fibonacci, limit: 7).allSatisfy { (1...7).contains($0) })
        #expect(HuffmanCode.lengths(for: fibonacci, limit: 30).max() == 25)
        // Kraft: a complete code's 2^-length sum to exactly 1.
        func kraftSum(_ lengths: [UInt8]) -> Int { lengths.filter { $0 > 0 }.reduce(0) { $0 + 1 << (15 - Int($1)) } }
        #expect(kraftSum(limited) == 1 << 15)
        // The more frequent symbol never gets the longer code.
        #expect(limited.last! <= limited.first!)
    }

    @Test func aCodeHasAtLeastTwoSymbols() {
        // zlib rejects incomplete codes, and one symbol cannot make a complete one.
        #expect(HuffmanCode.lengths(for: [0, 0, 9, 0], limit: 7) == [1, 0, 1, 0])
        #expect(HuffmanCode.lengths(for: [0, 0, 0], limit: 7) == [1, 1, 0])
    }

    @Test func lengthAndDistanceSymbolsFollowTheTables() {
        #expect(DeflateBlock.lengthSymbol[3] == 0)
        #expect(DeflateBlock.lengthSymbol[10] == 7)
        #expect(DeflateBlock.lengthSymbol[11] == 8 && DeflateBlock.lengthSymbol[12] == 8)
        #expect(DeflateBlock.lengthSymbol[257] == 27)
        #expect(DeflateBlock.lengthSymbol[258] == 28)
        #expect(DeflateBlock.distanceSymbol(1) == 0)
        #expect(DeflateBlock.distanceSymbol(5) == 4 && DeflateBlock.distanceSymbol(6) == 4)
        #expect(DeflateBlock.distanceSymbol(256) == 15 && DeflateBlock.distanceSymbol(257) == 16)
        #expect(DeflateBlock.distanceSymbol(24_577) == 29 && DeflateBlock.distanceSymbol(32_768) == 29)
        #expect(DeflateBlock.distanceSymbol(24_576) == 28)
    }
}
