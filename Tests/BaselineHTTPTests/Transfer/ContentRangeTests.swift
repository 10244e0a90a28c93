import Testing

@testable import BaselineHTTP

/// `Content-Range` as RFC 9110 §14.4 writes it: `bytes first-last/total`,
/// digits only, `*` for an unknown total.
@Suite("Content-Range")
struct ContentRangeTests {
    /// The range `header` gives, as `first-last/total`.
    func parsed(_ header: String) -> String? {
        ContentRange(header).map { "\($0.first)-\($0.last)/\($0.total.map(String.init) ?? "*")" }
    }

    @Test func theFormsOfRFC9110Parse() {
        #expect(parsed("bytes 42-1233/1234") == "42-1233/1234")
        #expect(parsed("bytes 42-1233/*") == "42-1233/*")
        #expect(parsed("bytes 0-0/1") == "0-0/1")
        #expect(parsed("bytes 007-9/010") == "7-9/10")
        // The unit is a token, compared without case.
        #expect(parsed("BYTES 0-0/1") == "0-0/1")
    }

    /// `Int64(_:)` took a sign; a number beyond `Int64`, or a range ending at
    /// its largest value, would overflow the length or the end.
    @Test(arguments: [
        "bytes +0-9/10", "bytes 0-+9/10", "bytes 0-9/+10", "bytes -0-9/10", "bytes 0--9/10",
        "bytes 0-9/10 ", "bytes  0-9/10", "bytes 0 -9/10", "bytes 0-9 /10", "bytes 0-9/ 10",
        "bytes 0-9", "bytes 0-9/", "bytes -9/10", "bytes 0-/10", "bytes */10", "bytes 9-0/10",
        "bytes 0-9/9", "bytes 0-9/5", "items 0-9/10", "bytes=0-9/10", "bytes", "", "bytes 0-9/*/1",
        "bytes 0-9223372036854775807/*", "bytes 0-9223372036854775808/*",
        "bytes 0-99999999999999999999/*", "bytes 0-9/99999999999999999999",
        "bytes ０-9/10",
    ])
    func anythingElseIsNoRange(_ header: String) {
        #expect(ContentRange(header) == nil)
    }

    @Test func theLargestRangesDoNotOverflow() throws {
        let range = try #require(ContentRange("bytes 0-9223372036854775806/*"))
        #expect(range.length == .max)
        #expect(range.end == .max)
        let whole = try #require(ContentRange("bytes 0-9223372036854775806/9223372036854775807"))
        #expect(whole.end == whole.total)
    }
}
