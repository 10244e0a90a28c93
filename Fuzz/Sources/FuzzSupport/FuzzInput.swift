/// Reads a fuzzer's bytes as choices (a split point, a limit) and then text:
/// the first bytes steer the harness, the rest is the parser's input.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    /// The `count` bytes at `data`, copied.
    public init(_ data: UnsafePointer<UInt8>?, count: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// The next byte, or 0 once they ran out.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `range`, from the next byte.
    public mutating func number(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(byte()) % (range.count)
    }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[min(position, bytes.count)...])
    }

    /// The bytes not read yet, as text (invalid UTF-8 repaired).
    public mutating func restAsText() -> String {
        String(decoding: rest(), as: UTF8.self)
    }
}
