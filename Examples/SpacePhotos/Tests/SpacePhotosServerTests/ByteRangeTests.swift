import Testing

@testable import SpacePhotosServer

/// `Range: bytes=…` read against RFC 9110 §14.1.2 and §14.2, with its
/// examples (a representation of 10,000 bytes), and against numbers too
/// large for an `Int`.
@Suite("ByteRange: the Range header of RFC 9110")
struct ByteRangeTests {
    static let size = 10_000

    struct Case: CustomTestStringConvertible, Sendable {
        var header: String
        var expected: ByteRange
        var testDescription: String {
            header.count > 60 ? "\(header.prefix(60))… (\(header.utf8.count) bytes)" : header
        }
    }

    /// The examples of §14.1.2.
    @Test(arguments: [
        // "The first 500 bytes", "The second 500 bytes".
        Case(header: "bytes=0-499", expected: .satisfiable(0..<500)),
        Case(header: "bytes=500-999", expected: .satisfiable(500..<1_000)),
        // "The final 500 bytes": both spellings.
        Case(header: "bytes=-500", expected: .satisfiable(9_500..<10_000)),
        Case(header: "bytes=9500-", expected: .satisfiable(9_500..<10_000)),
        // "The first and last bytes only": two parts, which this server does
        // not send as multipart/byteranges: the whole representation instead.
        Case(header: "bytes=0-0,-1", expected: .whole),
        // "Other valid (but not canonical) specifications of the second 500
        // bytes": joined into one range.
        Case(header: "bytes=500-600,601-999", expected: .satisfiable(500..<1_000)),
        Case(header: "bytes=500-700,601-999", expected: .satisfiable(500..<1_000)),
    ])
    func theRFCsExamples(_ example: Case) {
        #expect(ByteRange(header: example.header, size: Self.size) == example.expected)
    }

    /// §14.1.2: a last-pos at or past the end means the rest of the
    /// representation; a suffix longer than it means all of it; a first-pos
    /// at or past the end has no byte. However long the number.
    @Test(arguments: [
        Case(header: "bytes=0-9223372036854775807", expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=9000-9223372036854775806", expected: .satisfiable(9_000..<10_000)),
        Case(header: "bytes=0-99999999999999999999999999999999", expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=9999-10000", expected: .satisfiable(9_999..<10_000)),
        Case(header: "bytes=-10000", expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=-9223372036854775807", expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=-9223372036854775808", expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=-" + String(repeating: "9", count: 5_000), expected: .satisfiable(0..<10_000)),
        Case(header: "bytes=10000-", expected: .unsatisfiable),
        Case(header: "bytes=10000-10005", expected: .unsatisfiable),
        Case(header: "bytes=9223372036854775807-", expected: .unsatisfiable),
        Case(header: "bytes=9223372036854775807-9223372036854775807", expected: .unsatisfiable),
        Case(header: "bytes=99999999999999999999-", expected: .unsatisfiable),
        Case(
            header: "bytes=00000000000000000000000000005-0000000000000000000000000009",
            expected: .satisfiable(5..<10)
        ),
        // A suffix of zero has no byte (§14.1.2).
        Case(header: "bytes=-0", expected: .unsatisfiable),
    ])
    func hugeNumbersAreClampedNeverOverflowed(_ example: Case) {
        #expect(ByteRange(header: example.header, size: Self.size) == example.expected)
    }

    /// §14.1.1 and §5.6.1: the unit is case-insensitive; a list may have
    /// spaces around its commas and empty elements. §14.2: a set is
    /// unsatisfiable only when none of its ranges is; the others are left out.
    @Test(arguments: [
        Case(header: "Bytes=0-4", expected: .satisfiable(0..<5)),
        Case(header: "BYTES=0-4", expected: .satisfiable(0..<5)),
        Case(header: "bytes=, 0-4 ,,", expected: .satisfiable(0..<5)),
        Case(header: "bytes=0-4,\t5-9", expected: .satisfiable(0..<10)),
        Case(header: "bytes=20000-,0-4", expected: .satisfiable(0..<5)),
        Case(header: "bytes=20000-,-0", expected: .unsatisfiable),
        Case(header: "bytes=9990-,-5", expected: .satisfiable(9_990..<10_000)),
        Case(header: "bytes=0-1,5-6", expected: .whole),
    ])
    func listsAndCase(_ example: Case) {
        #expect(ByteRange(header: example.header, size: Self.size) == example.expected)
    }

    /// §14.2: a server may ignore an invalid ranges-specifier, another unit,
    /// or one with many ranges (§17.15): the whole representation is sent.
    @Test(arguments: [
        "bytes=5-4",
        // Found by the fuzzer: past Int.max, last before first is still invalid.
        "bytes= 555555555555555555555-555555555522821000000 ,", "bytes=99999999999999999999-9999999999999999999",
        "bytes=", "bytes=-", "bytes=,", "bytes=a-b", "bytes=+5-6", "bytes=5-+6", "bytes=-+5",
        "bytes=5 -6", "bytes=5- 6", "bytes=0x10-0x20", "bytes=1e3-", "bytes=٠-٩", "bytes=0-5-6", "bytes=0-5;q=1",
        "bytes 0-5", "bytes =0-5", "items=0-5", "byte=0-5", "bytesx=0-5", "", "=0-5", "bytes=0-5,x",
        "bytes=" + Array(repeating: "0-0", count: ByteRange.maximumRangeCount + 1).joined(separator: ","),
        "bytes=" + Array(repeating: "1-2", count: 20_000).joined(separator: ","),
    ])
    func invalidOrExcessiveHeadersAreIgnored(header: String) {
        #expect(ByteRange(header: header, size: Self.size) == .whole)
    }

    @Test func noHeaderIsTheWholeRepresentation() {
        #expect(ByteRange(header: nil, size: Self.size) == .whole)
    }

    @Test func asManyRangesAsTheLimitAreRead() {
        let header = "bytes=" + Array(repeating: "0-0", count: ByteRange.maximumRangeCount).joined(separator: ",")
        #expect(ByteRange(header: header, size: Self.size) == .satisfiable(0..<1))
        let empties = "bytes=" + String(repeating: ",", count: 10_000) + "3-4"
        #expect(ByteRange(header: empties, size: Self.size) == .satisfiable(3..<5))
    }

    /// No range has a byte in an empty representation (§14.1.2).
    @Test(arguments: ["bytes=0-", "bytes=0-0", "bytes=-1", "bytes=-9223372036854775807", "bytes=0-9223372036854775807"])
    func anEmptyRepresentationSatisfiesNoRange(header: String) {
        #expect(ByteRange(header: header, size: 0) == .unsatisfiable)
    }

    @Test func theLargestRepresentationsHaveNoOverflowEither() {
        for size in [Int.max, Int.max - 1, 4 << 30] {
            #expect(ByteRange(header: "bytes=0-9223372036854775807", size: size) == .satisfiable(0..<size))
            #expect(ByteRange(header: "bytes=-9223372036854775807", size: size) == .satisfiable(0..<size))
            #expect(ByteRange(header: "bytes=\(size - 1)-", size: size) == .satisfiable((size - 1)..<size))
            #expect(ByteRange(header: "bytes=9223372036854775807-", size: size) == .unsatisfiable)
        }
    }
}
