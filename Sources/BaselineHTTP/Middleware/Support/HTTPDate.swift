import Foundation

/// Parses the dates of HTTP header fields (`Retry-After`, `Expires`, `Date`).
///
/// RFC 9110 §5.6.7: senders use IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`);
/// recipients also accept the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`) forms. Parsed by hand rather than
/// with `DateFormatter`, which is neither `Sendable` nor cheap to share.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` gives, or `nil` when it is not an HTTP date.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":
            // IMF-fixdate: day-name, DD Mon YYYY HH:MM:SS GMT
            return date(day: parts[1], month: parts[2], year: parts[3], time: parts[4])
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":
            // RFC 850: day-name, DD-Mon-YY HH:MM:SS GMT
            let dayMonthYear = parts[1].split(separator: "-").map(String.init)
            guard dayMonthYear.count == 3, let shortYear = number(dayMonthYear[2], widths: 2...2) else { return nil }
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            let currentYear = Calendar(identifier: .gregorian).component(.year, from: Date())
            var year = 2000 + shortYear
            if year > currentYear + 50 { year -= 100 }
            return date(day: dayMonthYear[0], month: dayMonthYear[1], year: String(year), time: parts[2])
        case 5 where !parts[0].hasSuffix(","):
            // asctime: day-name Mon D HH:MM:SS YYYY
            return date(day: parts[2], month: parts[1], year: parts[4], time: parts[3], dayWidths: 1...2)
        default:
            return nil
        }
    }

    /// The moment the fields name. Each field is ASCII digits of the width
    /// the grammar gives (`Int` alone would take `+9`, `-1` or `7` for a
    /// two-digit field), and the day must exist in its month.
    private static func date(
        day: String,
        month: String,
        year: String,
        time: String,
        dayWidths: ClosedRange<Int> = 2...2
    ) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let day = number(day, widths: dayWidths),
            let month = months.firstIndex(of: month.lowercased()).map({ $0 + 1 }),
            let year = number(year, widths: 4...4),
            clock.count == 3, let hour = number(clock[0], widths: 2...2), let minute = number(clock[1], widths: 2...2),
            let second = number(clock[2], widths: 2...2),
            (1...daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The value of `text` when it is only ASCII digits, as many as `widths` allows.
    private static func number(_ text: some StringProtocol, widths: ClosedRange<Int>) -> Int? {
        guard widths.contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            return nil
        }
        return Int(text)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year.isMultiple(of: 4) && (!year.isMultiple(of: 100) || year.isMultiple(of: 400)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`): exact, and free of calendar and time zone objects.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
