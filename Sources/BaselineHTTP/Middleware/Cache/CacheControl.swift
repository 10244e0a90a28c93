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
                let parts = directive.split(separator: "=", maxSplits: 1)
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

    /// The comma-separated directives of `value`, ignoring commas inside quotes.
    private static func directives(in value: String) -> [Substring] {
        var result: [Substring] = []
        var start = value.startIndex
        var inQuotes = false
        for index in value.indices {
            switch value[index] {
            case "\"": inQuotes.toggle()
            case "," where !inQuotes:
                result.append(value[start..<index])
                start = value.index(after: index)
            default: break
            }
        }
        result.append(value[start...])
        return result.filter { !$0.trimmingWhitespace().isEmpty }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[start...end]
    }

    /// The text without one pair of surrounding double quotes.
    func trimmingQuotes() -> Substring {
        count >= 2 && first == "\"" && last == "\"" ? dropFirst().dropLast() : self
    }
}
