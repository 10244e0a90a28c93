import HTTPTypes

/// The `Cache-Control` directives the cache acts on (RFC 9111 §5.2), from
/// every `Cache-Control` field of a request or response.
struct CacheControl {
    /// The smallest `max-age`, in `0...DeltaSeconds.maximum`.
    var maxAge: Int?
    var noStore = false
    var noCache = false
    var mustRevalidate = false

    init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] {
            for directive in Self.directives(in: value) {
                let parts = directive.splitScalars(at: "=", maxSplits: 1)
                let name = parts.first.map { String($0.trimmingWhitespace()).lowercased() } ?? ""
                let argument = parts.count == 2 ? parts[1].trimmingWhitespace().trimmingQuotes() : nil
                switch name {
                case "max-age":
                    // A malformed max-age means stale (RFC 9111 §4.2.1); one
                    // too large for the cache means 2^31 seconds (§1.2.2).
                    let seconds = argument.flatMap { DeltaSeconds.parse($0) } ?? 0
                    maxAge = min(maxAge ?? .max, seconds)
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                default: break
                }
            }
        }
    }

    /// The comma-separated directives of `value`, ignoring commas inside
    /// quotes. Read scalar by scalar: a comma or a quote followed by a
    /// combining mark is one `Character`, but still a comma or a quote on the wire.
    private static func directives(in value: String) -> [Substring] {
        var result: [Substring] = []
        let scalars = value.unicodeScalars
        var start = scalars.startIndex
        var inQuotes = false
        for index in scalars.indices {
            switch scalars[index] {
            case "\"": inQuotes.toggle()
            case "," where !inQuotes:
                result.append(Substring(scalars[start..<index]))
                start = scalars.index(after: index)
            default: break
            }
        }
        result.append(Substring(scalars[start...]))
        return result.filter { !$0.trimmingWhitespace().isEmpty }
    }
}

/// Field values are read by Unicode scalar (each an ASCII byte, or a character
/// of a non-ASCII value), never by `Character`: a delimiter followed by a
/// combining mark makes one `Character` with it, and would be missed.
extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        return Substring(scalars[start...end])
    }

    /// The text without one pair of surrounding double quotes.
    func trimmingQuotes() -> Substring {
        let scalars = unicodeScalars
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return self }
        return Substring(scalars.dropFirst().dropLast())
    }

    /// The pieces between occurrences of `separator`, empty ones included.
    func splitScalars(at separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
        unicodeScalars.split(separator: separator, maxSplits: maxSplits, omittingEmptySubsequences: false)
            .map(Substring.init)
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring { self[...].trimmingWhitespace() }

    /// The pieces between occurrences of `separator`, empty ones included.
    func splitScalars(at separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
        self[...].splitScalars(at: separator, maxSplits: maxSplits)
    }
}
