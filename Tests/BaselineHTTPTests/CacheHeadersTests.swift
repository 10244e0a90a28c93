import Foundation
import HTTPTypes
import Testing

@testable import BaselineHTTP

/// The numbers and tags the cache reads: RFC 9111 §1.2.2 (delta-seconds),
/// RFC 9110 §8.8.3 (entity tags) and §12.5.5 (Vary).
@Suite("Cache header fields")
struct CacheHeadersTests {
    @Test(arguments: [
        ("0", 0), ("60", 60), ("007", 7), ("2147483647", 2_147_483_647), ("2147483648", 2_147_483_648),
        ("2147483649", 2_147_483_648), ("99999999999999999999", 2_147_483_648),
        (String(repeating: "9", count: 1_000), 2_147_483_648),
    ])
    func deltaSecondsAreDigitsCappedAtTwoToThe31(_ text: String, _ seconds: Int) {
        #expect(DeltaSeconds.parse(text) == seconds)
    }

    @Test(arguments: ["", "-1", "+5", "1e19", "inf", "nan", "0x10", "1.5", " 5", "5 ", "٣"])
    func anythingElseIsNoDeltaSeconds(_ text: String) {
        #expect(DeltaSeconds.parse(text) == nil)
    }

    @Test func secondsAreClampedToDeltaSeconds() {
        #expect(DeltaSeconds.clamping(.nan) == 0)
        #expect(DeltaSeconds.clamping(-.infinity) == 0)
        #expect(DeltaSeconds.clamping(-1) == 0)
        #expect(DeltaSeconds.clamping(59.9) == 59)
        #expect(DeltaSeconds.clamping(1e19) == 2_147_483_648)
        #expect(DeltaSeconds.clamping(.infinity) == 2_147_483_648)
    }

    @Test func entityTagsCompareAsRFC9110Says() throws {
        // RFC 9110 §8.8.3.2's table.
        let pairs: [(String, String, strong: Bool, weak: Bool)] = [
            (#"W/"1""#, #"W/"1""#, false, true),
            (#"W/"1""#, #"W/"2""#, false, false),
            (#"W/"1""#, #""1""#, false, true),
            (#""1""#, #""1""#, true, true),
        ]
        for (a, b, strong, weak) in pairs {
            let first = try #require(EntityTag(a))
            let second = try #require(EntityTag(b))
            #expect(first.matchesStrongly(second) == strong)
            #expect(first.matchesWeakly(second) == weak)
            #expect(second.matchesWeakly(first) == weak)
        }
        #expect(EntityTag(#" W/"a b" "#)?.text == nil)  // a space is no etagc
        #expect(EntityTag(#" W/"ab" "#)?.text == #"W/"ab""#)
        for malformed in ["", "\"", "abc", #""a"b""#, #"w/"a""#, #"W/ "a""#, "\"ax"] {
            #expect(EntityTag(malformed) == nil)
        }
    }

    @Test func varyIsReadWithoutCaseOrderOrEmptyElements() {
        func vary(_ values: String...) -> Vary {
            Vary(HTTPFields(values.map { HTTPField(name: .vary, value: $0) }))
        }
        #expect(vary("Accept-Encoding") == .fields(["accept-encoding"]))
        #expect(vary("accept-encoding, ,ACCEPT-ENCODING") == vary("Accept-Encoding"))
        #expect(vary("Accept-Language", "Accept-Encoding") == vary("accept-encoding,accept-language"))
        #expect(vary("Accept-Encoding, *") == .anything)
        #expect(vary() == .fields([]))
        #expect(vary("", ",") == .fields([]))
        #expect(vary("Accept-Encoding").allowsURLKeyedStorage)
        #expect(vary(",").allowsURLKeyedStorage)
        #expect(!vary("Accept-Language").allowsURLKeyedStorage)
        #expect(!vary("*").allowsURLKeyedStorage)
    }

    /// Found by `Fuzz/run CacheHeaders`: a comma followed by a combining mark
    /// is one `Character`, which `split(separator: ",")` did not split; on
    /// the wire it is a comma like any other.
    @Test func delimitersAreReadByScalarNotByCharacter() {
        let combining = "\u{0301}"
        let cacheControl = CacheControl([.cacheControl: "max-age=60, no-store,\(combining)x"])
        #expect(cacheControl.noStore)
        #expect(cacheControl.maxAge == 60)
        let joined = Vary([.vary: "Accept-Language,\(combining)x"])
        var separate = HTTPFields()
        separate.append(HTTPField(name: .vary, value: "Accept-Language"))
        separate.append(HTTPField(name: .vary, value: "\(combining)x"))
        #expect(joined == Vary(separate))
        #expect(joined == .fields(["accept-language", "\(combining)x"]))
        #expect(EntityTag("W/\"\(combining)\"")?.isWeak == true)
        #expect(Substring(" \(combining) ").trimmingWhitespace() == Substring(combining))
    }

    /// An entry whose `Age` is no delta-seconds, or too large, has a total
    /// age: the cache used to read it with `TimeInterval(_:)` and trap.
    @Test(arguments: ["1e19", "inf", "-inf", "nan", "0x1p63", "99999999999999999999", "-1"])
    func anAgeFromTheServerNeverBreaksTheArithmetic(_ age: String) {
        let received = Date(timeIntervalSince1970: 1_700_000_000)
        let entry = CachedResponse(
            response: HTTPResponse(status: .ok, headerFields: [.age: age, .cacheControl: "max-age=60"]),
            body: Data(),
            receivedAt: received
        )
        for now in [received, received.addingTimeInterval(-1e12), received.addingTimeInterval(1e15), .distantFuture] {
            let seconds = entry.age(at: now)
            #expect((0...2_147_483_648).contains(seconds))
            #expect(DeltaSeconds.clamping(seconds) <= 2_147_483_648)
        }
    }
}
