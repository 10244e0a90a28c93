import Foundation

// `nonisolated` for an app target whose default isolation is the main actor:
// the photo API and the saved-photo repository use it off the main actor.

/// The catalog's calendar days, written `yyyy-MM-dd`, in UTC.
///
/// A strict parser of its own instead of a `DateFormatter`: formatters are not
/// `Sendable`, follow the user's locale and time zone unless told otherwise,
/// and accept dates like `2024-02-31` leniently.
public nonisolated enum PhotoDay {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? .gmt
        return calendar
    }()

    /// Midnight UTC of the day `string` names, or `nil` unless it is a real
    /// day written exactly `yyyy-MM-dd`.
    public static func date(from string: String) -> Date? {
        let utf8 = Array(string.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        // No year 0: the calendar takes it as 1 BC and prints it as 0001.
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            year >= 1, (1...12).contains(month), day >= 1
        else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        // Rejects the 31st of a 30-day month: the calendar would roll it over.
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date
    }

    /// `date`'s day in UTC, as `yyyy-MM-dd`.
    public static func string(from date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func padded(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.year, 4))-\(padded(parts.month, 2))-\(padded(parts.day, 2))"
    }
}
