/// What a `Range: bytes=…` header (RFC 9110 §14.1.2) asks of a
/// representation, resolved against its size.
///
/// The header is read as RFC 9110 writes it: a case-insensitive `bytes`
/// unit, then a comma-separated set of `first-last`, `first-` and
/// `-suffix` ranges of decimal digits (empty list elements and spaces
/// around commas are allowed). Numbers of any length are read without
/// overflow: a `last` past the end stands for the last byte, a `suffix`
/// longer than the representation for all of it, and a `first` past the
/// end makes its range unsatisfiable.
///
/// The server sends one part, never `multipart/byteranges`: ranges that
/// overlap or touch are joined (§14.2 allows it), and a set that still
/// names several separate ranges is ignored (200 with the whole
/// representation), as is a header with a syntax error, another unit, or
/// more than ``maximumRangeCount`` ranges (§14.2 and §17.15 let a server
/// ignore those).
enum ByteRange: Equatable {
    /// Send these bytes with 206 Partial Content: never empty, and inside
    /// `0..<size`.
    case satisfiable(Range<Int>)
    /// No range of the set has a byte in the representation: 416.
    case unsatisfiable
    /// Serve the whole representation with 200: there is no range, or one
    /// the server ignores.
    case whole

    /// The most ranges one header may list before the server ignores it.
    static let maximumRangeCount = 64

    /// The range `header` asks of a representation of `size` bytes
    /// (`size` ≥ 0).
    init(header: String?, size: Int) {
        guard let header, let specs = Self.rangeSpecs(header) else {
            self = .whole
            return
        }
        let size = max(size, 0)
        var ranges: [Range<Int>] = []
        for spec in specs {
            switch spec {
            case let .from(first, last):
                // first-pos at or past the end: this range has no byte.
                guard first < size else { continue }
                // A last-pos past the end means the last byte; `last` < size here, so +1 cannot overflow.
                let end = last.map { min($0, size - 1) } ?? size - 1
                ranges.append(first..<(end + 1))
            case let .suffix(length):
                guard length > 0, size > 0 else { continue }
                ranges.append((size - min(length, size))..<size)
            }
        }
        guard !ranges.isEmpty else {
            self = .unsatisfiable
            return
        }
        let joined = Self.coalesce(ranges)
        self = joined.count == 1 ? .satisfiable(joined[0]) : .whole
    }

    /// One `range-spec`, its numbers saturated at `Int.max`.
    enum Spec: Equatable {
        /// `first-last` or, with no `last`, `first-`.
        case from(Int, last: Int?)
        /// `-length`: the last `length` bytes.
        case suffix(Int)
    }

    /// The range specs of a `bytes` header; nil when the header is not a
    /// valid `bytes` ranges-specifier, or lists more than
    /// ``maximumRangeCount`` ranges.
    static func rangeSpecs(_ header: String) -> [Spec]? {
        let bytes = Array(header.utf8)
        let unit = Array("bytes=".utf8)
        // The unit is case-insensitive (§14.1); nothing may stand between it and "=".
        guard bytes.count > unit.count, zip(bytes, unit).allSatisfy({ lowercased($0) == $1 }) else { return nil }
        var specs: [Spec] = []
        // 1#range-spec: elements separated by commas with optional spaces or
        // tabs around them; empty elements are skipped (RFC 9110 §5.6.1).
        for element in bytes[unit.count...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let item = trimmingSpaces(element)
            if item.isEmpty { continue }
            guard let spec = Self.spec(item) else { return nil }
            specs.append(spec)
            guard specs.count <= maximumRangeCount else { return nil }
        }
        return specs.isEmpty ? nil : specs
    }

    /// `first-last`, `first-` or `-suffix`; nil for anything else, including
    /// an int-range whose last is before its first (invalid, §14.1.2).
    static func spec(_ item: ArraySlice<UInt8>) -> Spec? {
        guard let dash = item.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let first = item[..<dash]
        let last = item[(dash + 1)...]
        if first.isEmpty {
            return number(last).map(Spec.suffix)
        }
        guard let start = number(first) else { return nil }
        if last.isEmpty { return .from(start, last: nil) }
        // The order is read from the digits: past Int.max both numbers saturate.
        guard let end = number(last), !isLess(last, than: first) else { return nil }
        return .from(start, last: end)
    }

    /// Whether the decimal digits `left` name a smaller number than
    /// `right`, leading zeros and all, however long they are.
    static func isLess(_ left: ArraySlice<UInt8>, than right: ArraySlice<UInt8>) -> Bool {
        let zero = UInt8(ascii: "0")
        let a = left.drop { $0 == zero }
        let b = right.drop { $0 == zero }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    /// `1*DIGIT` as an `Int`, saturating at `Int.max` (any longer number
    /// is past the end of every representation anyway); nil when empty or
    /// when anything but a digit appears (no sign, no spaces).
    static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }

    /// The ranges sorted, with those that overlap or touch joined.
    static func coalesce(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var joined: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, range.lowerBound <= last.upperBound {
                joined[joined.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }

    /// An ASCII letter in lower case; any other byte as it is.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
    }

    /// `bytes` without the spaces and tabs (OWS) at either end.
    private static func trimmingSpaces(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }
}
