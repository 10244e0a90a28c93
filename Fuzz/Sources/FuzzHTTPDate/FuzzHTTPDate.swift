import Foundation
import FuzzSupport

@testable import BaselineHTTP

// Property: a date that parses prints back to itself. Printed as
// IMF-fixdate (the form senders use), it parses to the same moment, and an
// IMF-fixdate input with two-digit fields is exactly what is printed (the
// day name aside: recipients do not check it).
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    guard let date = HTTPDate.parse(text) else { return 0 }
    let printed = imfFixdate(date)
    require(HTTPDate.parse(printed) == date, "\(printed) (from \(text)) parses to another date")
    let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    if parts.count == 6, !parts[4].hasSuffix(":60") {
        let expected = parts[1...4].joined(separator: " ").lowercased()
        let actual = printed.split(separator: " ")[1...4].joined(separator: " ").lowercased()
        require(actual == expected, "\(text) parses to \(printed)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzHTTPDate_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`, from days since 1970 (Howard Hinnant's
/// `civil_from_days`): written for the check, independent of the parser.
func imfFixdate(_ date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970)
    let days = Int((Double(seconds) / 86_400).rounded(.down))
    let secondOfDay = seconds - days * 86_400
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return "\(weekday), \(two(day)) \(months[month - 1]) \(yearText) "
        + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
}
