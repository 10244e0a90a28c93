/// One deflate block (RFC 1951 §3.2.3): the LZ77 tokens for a stretch of
/// input, written in whichever of the three block types is smallest —
/// stored, fixed Huffman codes, or Huffman codes built for these tokens.
struct DeflateBlock {
    /// A literal byte, or a match: a length (3…258) and a distance
    /// (1…32768) back, packed in one word so a block's tokens are one array.
    struct Token {
        let bits: UInt32

        static func literal(_ byte: UInt8) -> Token { Token(bits: UInt32(byte)) }

        static func match(length: Int, distance: Int) -> Token {
            Token(bits: 1 << 31 | UInt32(length) << 16 | UInt32(distance))
        }

        var isMatch: Bool { bits >> 31 == 1 }
        var literal: Int { Int(bits & 0xFF) }
        var length: Int { Int(bits >> 16 & 0x1FF) }
        var distance: Int { Int(bits & 0xFFFF) }
    }

    var tokens: [Token]
    /// The input bytes the tokens stand for: a stored block copies them.
    var raw: UnsafeBufferPointer<UInt8>
    var isFinal: Bool

    /// Writes the block as the cheapest of the three types.
    func write(to writer: inout DeflateBitWriter) {
        var literalFrequencies = [Int](repeating: 0, count: 286)
        var distanceFrequencies = [Int](repeating: 0, count: 30)
        var extraBits = 0
        for token in tokens {
            if token.isMatch {
                let lengthSymbol = Self.lengthSymbol[token.length]
                let distanceSymbol = Self.distanceSymbol(token.distance)
                literalFrequencies[257 + lengthSymbol] += 1
                distanceFrequencies[distanceSymbol] += 1
                extraBits += Int(Self.lengthExtra[lengthSymbol] + Self.distanceExtra[distanceSymbol])
            } else {
                literalFrequencies[token.literal] += 1
            }
        }
        literalFrequencies[256] = 1  // end of block

        let literals = HuffmanCode(frequencies: literalFrequencies, limit: 15)
        let distances = HuffmanCode(frequencies: distanceFrequencies, limit: 15)
        let header = DynamicHeader(literals: literals, distances: distances)
        func cost(_ code: HuffmanCode, _ frequencies: [Int]) -> Int {
            zip(code.lengths, frequencies).reduce(0) { $0 + Int($1.0) * $1.1 }
        }
        let dynamicBits = 3 + header.bitCount + cost(literals, literalFrequencies) + cost(distances, distanceFrequencies) + extraBits
        let fixedBits = 3 + cost(Self.fixedLiterals, literalFrequencies) + cost(Self.fixedDistances, distanceFrequencies) + extraBits
        // Up to 7 bits of padding, then per 64 KiB piece a 3-bit header (padded) and LEN, NLEN.
        let storedBits = 8 * (raw.count + 5 * max(1, (raw.count + 65_534) / 65_535)) + 7

        if storedBits < min(dynamicBits, fixedBits) {
            writeStored(to: &writer)
        } else if dynamicBits < fixedBits {
            writer.write(UInt32(isFinal ? 1 : 0) | 2 << 1, count: 3)
            header.write(to: &writer)
            writeTokens(literals: literals, distances: distances, to: &writer)
        } else {
            writer.write(UInt32(isFinal ? 1 : 0) | 1 << 1, count: 3)
            writeTokens(literals: Self.fixedLiterals, distances: Self.fixedDistances, to: &writer)
        }
    }

    private func writeTokens(literals: HuffmanCode, distances: HuffmanCode, to writer: inout DeflateBitWriter) {
        literals.codes.withUnsafeBufferPointer { literalCodes in
            literals.lengths.withUnsafeBufferPointer { literalLengths in
                distances.codes.withUnsafeBufferPointer { distanceCodes in
                    distances.lengths.withUnsafeBufferPointer { distanceLengths in
                        for token in tokens {
                            if token.isMatch {
                                let length = token.length
                                let lengthSymbol = Self.lengthSymbol[length]
                                writer.write(UInt32(literalCodes[257 + lengthSymbol]), count: Int(literalLengths[257 + lengthSymbol]))
                                writer.write(UInt32(length - Int(Self.lengthBase[lengthSymbol])), count: Int(Self.lengthExtra[lengthSymbol]))
                                let distance = token.distance
                                let distanceSymbol = Self.distanceSymbol(distance)
                                writer.write(UInt32(distanceCodes[distanceSymbol]), count: Int(distanceLengths[distanceSymbol]))
                                writer.write(UInt32(distance - Int(Self.distanceBase[distanceSymbol])), count: Int(Self.distanceExtra[distanceSymbol]))
                            } else {
                                let literal = token.literal
                                writer.write(UInt32(literalCodes[literal]), count: Int(literalLengths[literal]))
                            }
                        }
                        writer.write(UInt32(literalCodes[256]), count: Int(literalLengths[256]))
                    }
                }
            }
        }
    }

    /// Stored blocks hold at most 65535 bytes each, so a long stretch takes several.
    private func writeStored(to writer: inout DeflateBitWriter) {
        var start = 0
        repeat {
            let end = min(start + 65_535, raw.count)
            writer.write(UInt32(isFinal && end == raw.count ? 1 : 0), count: 3)
            writer.alignToByte()
            let length = UInt32(end - start)
            writer.write(length | (~length & 0xFFFF) << 16, count: 32)
            writer.appendAligned(UnsafeBufferPointer(rebasing: raw[start..<end]))
            start = end
        } while start < raw.count
    }

    // MARK: The code tables of RFC 1951 §3.2.5

    /// Shortest length (3…258) of each of the 29 length symbols (257…285).
    static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Shortest distance of each of the 30 distance symbols.
    static let distanceBase: [UInt16] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// The length symbol (0…28, for 257…285) of each match length, indexed by length.
    static let lengthSymbol: [Int] = {
        var table = [Int](repeating: 0, count: 259)
        for symbol in lengthBase.indices {
            let end = symbol + 1 < lengthBase.count ? Int(lengthBase[symbol + 1]) : 259
            for length in Int(lengthBase[symbol])..<end { table[length] = symbol }
        }
        return table
    }()

    /// Distances 1…256 by distance, then larger ones by (distance − 1) / 128,
    /// as zlib does: a 512-entry table covers all 32768.
    private static let distanceSymbols: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 512)
        for symbol in distanceBase.indices {
            let end = symbol + 1 < distanceBase.count ? Int(distanceBase[symbol + 1]) : 32_769
            for distance in Int(distanceBase[symbol])..<end {
                let index = distance <= 256 ? distance - 1 : 256 + (distance - 1) >> 7
                table[index] = UInt8(symbol)
            }
        }
        return table
    }()

    static func distanceSymbol(_ distance: Int) -> Int {
        Int(distanceSymbols[distance <= 256 ? distance - 1 : 256 + (distance - 1) >> 7])
    }

    /// BTYPE 01's literal/length code: 8 bits for 0–143, 9 for 144–255,
    /// 7 for 256–279, 8 for 280–287.
    static let fixedLiterals = HuffmanCode(lengths: (0..<288).map { symbol in
        switch symbol {
        case 0...143: 8
        case 144...255: 9
        case 256...279: 7
        default: 8
        }
    })
    /// BTYPE 01's distance code: 5 bits each.
    static let fixedDistances = HuffmanCode(lengths: [UInt8](repeating: 5, count: 30))
}

/// The start of a dynamic block (RFC 1951 §3.2.7): the two codes' lengths,
/// run-length coded, and themselves Huffman coded with a third code.
struct DynamicHeader {
    /// The order the code-length code's lengths are sent in.
    static let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    let literalCount: Int
    let distanceCount: Int
    /// Symbols 0–18 of the run-length coded lengths, each with its extra bits.
    let runs: [(symbol: Int, extra: UInt32)]
    let lengthCode: HuffmanCode
    let lengthCodeCount: Int

    init(literals: HuffmanCode, distances: HuffmanCode) {
        literalCount = max(257, (literals.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        distanceCount = max(1, (distances.lengths.lastIndex { $0 > 0 } ?? 0) + 1)
        let all = Array(literals.lengths.prefix(literalCount)) + Array(distances.lengths.prefix(distanceCount))
        var runs: [(symbol: Int, extra: UInt32)] = []
        var index = 0
        while index < all.count {
            let length = all[index]
            var run = 1
            while index + run < all.count && all[index + run] == length { run += 1 }
            index += run
            if length == 0 {
                // 18: 11–138 zeros; 17: 3–10 zeros.
                while run >= 11 {
                    let count = min(run, 138)
                    runs.append((18, UInt32(count - 11)))
                    run -= count
                }
                if run >= 3 {
                    runs.append((17, UInt32(run - 3)))
                    run = 0
                }
            } else {
                // 16: the previous length 3–6 more times.
                runs.append((Int(length), 0))
                run -= 1
                while run >= 3 {
                    let count = min(run, 6)
                    runs.append((16, UInt32(count - 3)))
                    run -= count
                }
            }
            for _ in 0..<run { runs.append((Int(length), 0)) }
        }
        var frequencies = [Int](repeating: 0, count: 19)
        for run in runs { frequencies[run.symbol] += 1 }
        let lengthCode = HuffmanCode(frequencies: frequencies, limit: 7)
        lengthCodeCount = max(4, (Self.order.lastIndex { lengthCode.lengths[$0] > 0 } ?? 0) + 1)
        self.lengthCode = lengthCode
        self.runs = runs
    }

    static let extraBits = [16: 2, 17: 3, 18: 7]

    /// HLIT, HDIST, HCLEN, the code-length code, and the coded lengths.
    var bitCount: Int {
        5 + 5 + 4 + 3 * lengthCodeCount + runs.reduce(0) { $0 + Int(lengthCode.lengths[$1.symbol]) + (Self.extraBits[$1.symbol] ?? 0) }
    }

    func write(to writer: inout DeflateBitWriter) {
        writer.write(UInt32(literalCount - 257), count: 5)
        writer.write(UInt32(distanceCount - 1), count: 5)
        writer.write(UInt32(lengthCodeCount - 4), count: 4)
        for symbol in Self.order.prefix(lengthCodeCount) {
            writer.write(UInt32(lengthCode.lengths[symbol]), count: 3)
        }
        for run in runs {
            writer.write(UInt32(lengthCode.codes[run.symbol]), count: Int(lengthCode.lengths[run.symbol]))
            if let extra = Self.extraBits[run.symbol] { writer.write(run.extra, count: extra) }
        }
    }
}
