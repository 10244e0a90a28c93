import Foundation
import Testing

@testable import BaselineHTTP

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun Nov 06 08:49:37 1994",
    ])
    func theThreeFormsParse(_ text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    /// Found by `Fuzz/run HTTPDate` (a parsed date must print back to
    /// itself): `Int` took signs and short fields, and days past a month's end
    /// rolled into the next month.
    @Test(arguments: [
        "Sat, 31 Dec 2016 23:59:6  GMT",
        "Sun, 06 Nov +994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:+7 GMT",
        "Sun, +6 Nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sunday, 06-Nov-+4 08:49:37 GMT",
        "Sat, 31 Feb 2024 00:00:00 GMT",
        "Sat, 29 Feb 2023 00:00:00 GMT",
        "Sun Nov 31 08:49:37 1994",
        "Sun Nov 006 08:49:37 1994",
    ])
    func malformedFieldsAreNotDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func aLeapDayAndALeapSecondParse() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT") == Date(timeIntervalSince1970: 1_483_228_800))
    }
}
