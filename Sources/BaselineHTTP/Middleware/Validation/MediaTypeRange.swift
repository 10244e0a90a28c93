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

    /// Parses `text` (`type/subtype`, parameters ignored); `nil` when it has
    /// no `/`, or when the type or subtype is not an HTTP token (RFC 9110 §5.6.2).
    ///
    /// The text is read as Unicode scalars, not characters: a combining mark
    /// after `/` would otherwise glue onto it and hide the separator.
    public init?(_ text: String) {
        let scalars = text.unicodeScalars
        let essence = scalars.prefix { $0 != ";" }
        guard let slash = essence.firstIndex(of: "/") else { return nil }
        guard let type = Self.token(essence[..<slash]),
            let subtype = Self.token(essence[essence.index(after: slash)...])
        else {
            return nil
        }
        self.type = type
        self.subtype = subtype
    }

    /// `scalars` without surrounding spaces and tabs, lowercased, when what is
    /// left is a non-empty token.
    private static func token(_ scalars: Substring.UnicodeScalarView) -> String? {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else {
            return nil
        }
        let trimmed = scalars[start...end]
        guard trimmed.allSatisfy(isTokenCharacter) else { return nil }
        return String(String.UnicodeScalarView(trimmed)).lowercased()
    }

    /// RFC 9110's `tchar`: ASCII letters and digits and ``!#$%&'*+-.^_`|~``.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
        default: false
        }
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

    /// The range as `type/subtype`, as it would appear in an `Accept` field.
    public var description: String { "\(type)/\(subtype)" }

    /// Whether `contentType` (a `Content-Type` value) falls in this range.
    ///
    /// - Parameters:
    ///   - contentType: The field's value, parameters included (`application/json; charset=utf-8`).
    ///   - allowingSuffix: Whether `type/x+subtype` matches `type/subtype`.
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
