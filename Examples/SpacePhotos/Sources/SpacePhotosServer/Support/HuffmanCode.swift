/// A canonical Huffman code as deflate uses it (RFC 1951 §3.2.2): only
/// each symbol's code length is sent, and the codes follow from the lengths.
struct HuffmanCode: Sendable {
    /// Bits per symbol; 0 for a symbol that never occurs.
    let lengths: [UInt8]
    /// Each symbol's code, bit-reversed: deflate sends Huffman codes most
    /// significant bit first into a stream packed least significant bit first.
    let codes: [UInt16]

    /// The canonical code for `lengths` (at most 15 bits each).
    init(lengths: [UInt8]) {
        var perLength = [Int](repeating: 0, count: 16)
        for length in lengths where length > 0 { perLength[Int(length)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1...15 {
            code = (code + perLength[bits - 1]) << 1
            next[bits] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            codes[symbol] = Self.reversed(UInt16(next[Int(length)]), bits: Int(length))
            next[Int(length)] += 1
        }
        self.lengths = lengths
        self.codes = codes
    }

    /// The code built for `frequencies`, no length over `limit`.
    init(frequencies: [Int], limit: Int) {
        self.init(lengths: Self.lengths(for: frequencies, limit: limit))
    }

    /// Optimal lengths for `frequencies`, flattened until none exceeds `limit`.
    ///
    /// At least two symbols get a code even when fewer occur: zlib's inflate
    /// rejects an incomplete code-length code, and a one-symbol code is
    /// always incomplete.
    static func lengths(for frequencies: [Int], limit: Int) -> [UInt8] {
        var weights = frequencies
        var used = weights.filter { $0 > 0 }.count
        for symbol in weights.indices where used < 2 && weights[symbol] == 0 {
            weights[symbol] = 1
            used += 1
        }
        while true {
            let lengths = unlimitedLengths(for: weights)
            if lengths.allSatisfy({ Int($0) <= limit }) { return lengths }
            // Halving (but keeping every used symbol) evens the weights out,
            // which shortens the longest codes; all-equal weights need only
            // ⌈log2 n⌉ bits, within every limit deflate sets. Simpler than
            // package-merge, and at most a few bits worse.
            weights = weights.map { $0 == 0 ? 0 : $0 >> 1 | 1 }
        }
    }

    /// Huffman's algorithm by the two-queue method: leaves sorted by weight,
    /// and merged nodes, which come out in order of weight by construction.
    private static func unlimitedLengths(for weights: [Int]) -> [UInt8] {
        let leaves = weights.indices.filter { weights[$0] > 0 }.sorted { (weights[$0], $0) < (weights[$1], $1) }
        var lengths = [UInt8](repeating: 0, count: weights.count)
        guard leaves.count > 1 else {
            for leaf in leaves { lengths[leaf] = 1 }
            return lengths
        }
        // Nodes 0..<leaves.count are the leaves; merged nodes follow.
        var weight = leaves.map { weights[$0] }
        var parent = [Int](repeating: -1, count: 2 * leaves.count - 1)
        var nextLeaf = 0
        var nextMerged = leaves.count
        func takeLightest() -> Int {
            if nextLeaf < leaves.count && (nextMerged == weight.count || weight[nextLeaf] <= weight[nextMerged]) {
                nextLeaf += 1
                return nextLeaf - 1
            }
            nextMerged += 1
            return nextMerged - 1
        }
        for _ in 1..<leaves.count {
            let first = takeLightest()
            let second = takeLightest()
            parent[first] = weight.count
            parent[second] = weight.count
            weight.append(weight[first] + weight[second])
        }
        // Parents come after their children, so one pass from the root down.
        var depth = [Int](repeating: 0, count: weight.count)
        for node in stride(from: weight.count - 2, through: 0, by: -1) {
            depth[node] = depth[parent[node]] + 1
        }
        for (node, leaf) in leaves.enumerated() { lengths[leaf] = UInt8(min(depth[node], 255)) }
        return lengths
    }

    private static func reversed(_ code: UInt16, bits: Int) -> UInt16 {
        var code = code
        var result: UInt16 = 0
        for _ in 0..<bits {
            result = result << 1 | code & 1
            code >>= 1
        }
        return result
    }
}
