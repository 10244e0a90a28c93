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
            guard dayMonthYear.count == 3, dayMonthYear[2].count == 2, let shortYear = Int(dayMonthYear[2]) else { return nil }
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            let currentYear = Calendar(identifier: .gregorian).component(.year, from: Date())
            var year = 2000 + shortYear
            if year > currentYear + 50 { year -= 100 }
            return date(day: dayMonthYear[0], month: dayMonthYear[1], year: String(year), time: parts[2])
        case 5 where !parts[0].hasSuffix(","):
            // asctime: day-name Mon D HH:MM:SS YYYY
            return date(day: parts[2], month: parts[1], year: parts[4], time: parts[3])
        default:
            return nil
        }
    }

    private static func date(day: String, month: String, year: String, time: String) -> Date? {
        let clock = time.split(separator: ":")
        guard let day = Int(day), (1...31).contains(day),
              let month = months.firstIndex(of: month.lowercased()).map({ $0 + 1 }),
              year.count == 4, let year = Int(year),
              clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
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
