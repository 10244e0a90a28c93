import Foundation
import HTTPTypes

/// The wait a `Retry-After` field asks for (RFC 9110 §10.2.3): delay-seconds
/// (`120`) or an HTTP date. A date in the past means no wait.
enum RetryAfter {
    /// The wait `value` asks for, measured from `now`; `nil` when it is neither form.
    static func delay(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            // Too many digits to fit an Int is still "a very long time".
            return .seconds(Int(trimmed) ?? .max)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}

extension Character {
    /// Whether the character is one of the ASCII digits `0` to `9` alone
    /// (`("0"..."9").contains` would also take a digit with a combining mark).
    var isASCIIDigit: Bool { asciiValue.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
}
