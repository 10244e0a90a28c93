/// A media type, or a range of them (`application/json`, `image/*`, `*/*`),
/// that a response's `Content-Type` is matched against.
///
/// Matching ignores parameters and case: `application/json; charset=utf-8`
/// matches `application/json`. With structured syntax suffixes allowed,
/// `application/problem+json` matches `application/json` too (RFC 6839).
public struct MediaTypeRange: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The type, lowercased: `application`, or `*`.
    public let type: String
    /// The subtype, lowercased: `json`, or `*`.
    public let subtype: String

    /// Parses `text` (`type/subtype`, parameters ignored); `nil` when it has no `/`.
    public init?(_ text: String) {
        let essence = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let type = parts[0].trimmingWhitespace().lowercased()
        let subtype = parts[1].trimmingWhitespace().lowercased()
        guard !type.isEmpty, !subtype.isEmpty else { return nil }
        self.type = type
        self.subtype = subtype
    }

    /// A range from a literal such as `"application/json"`. A literal that is
    /// not a media type matches nothing.
    public init(stringLiteral value: String) {
        self = MediaTypeRange(value) ?? MediaTypeRange(type: "", subtype: "")
    }

    private init(type: String, subtype: String) {
        self.type = type
        self.subtype = subtype
    }

    /// `application/json`.
    public static let json: MediaTypeRange = "application/json"
    /// Any media type.
    public static let any: MediaTypeRange = "*/*"

    public var description: String { "\(type)/\(subtype)" }

    /// Whether `contentType` (a `Content-Type` value) falls in this range.
    ///
    /// - Parameter allowingSuffix: Whether `type/x+subtype` matches `type/subtype`.
    public func matches(_ contentType: String, allowingSuffix: Bool = true) -> Bool {
        guard let candidate = MediaTypeRange(contentType), candidate.type != "*", candidate.subtype != "*" else {
            return false
        }
        if type == "*" { return subtype == "*" }
        guard type == candidate.type else { return false }
        if subtype == "*" || subtype == candidate.subtype { return true }
        guard allowingSuffix, let plus = candidate.subtype.lastIndex(of: "+") else { return false }
        return candidate.subtype[candidate.subtype.index(after: plus)...] == subtype
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[start...end]
    }
}
