/// A 206 response's `Content-Range: bytes <first>-<last>/<total>` (RFC 9110
/// §14.4); `total` is nil when the server wrote `*`.
///
/// Every value it holds is consistent: `0 <= first <= last < total` (or no
/// total), and `last < Int64.max`, so ``length`` and ``end`` never overflow.
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var total: Int64?

    /// The range `header` gives, or `nil` when it is not a satisfied byte
    /// range: another unit, `*` for the range, a number with a sign, spaces
    /// or anything but ASCII digits (which `Int64(_:)` would take or drop),
    /// a number beyond `Int64`, or bounds out of order.
    init?(_ header: String?) {
        guard let header else { return nil }
        let utf8 = Substring(header).utf8
        // The unit is a token, compared without case (RFC 9110 §14.1).
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")),
            utf8[..<space].count == 5,
            // ASCII letters: setting 0x20 lowercases them and only them to "bytes".
            zip(utf8[..<space], "bytes".utf8).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        let spec = utf8[utf8.index(after: space)...]
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")),
            let slash = spec[dash...].firstIndex(of: UInt8(ascii: "/")),
            let first = Self.number(spec[..<dash]),
            let last = Self.number(spec[spec.index(after: dash)..<slash]),
            first <= last, last < .max
        else { return nil }
        let totalText = spec[spec.index(after: slash)...]
        self.first = first
        self.last = last
        if totalText.elementsEqual("*".utf8) {
            total = nil
        } else {
            guard let total = Self.number(totalText), total > last else { return nil }
            self.total = total
        }
    }

    /// The number of bytes the range holds.
    var length: Int64 { last - first + 1 }

    /// The offset just past the range's last byte.
    var end: Int64 { last + 1 }

    /// The value of `digits` when it is one or more ASCII digits and fits `Int64`.
    private static func number(_ digits: Substring.UTF8View) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }
}
