/// The path of a ``Request``, written as a string literal in which every
/// interpolated value is one path segment.
///
/// ```swift
/// let id = "a/../../admin"
/// Request<Member>.get("/members/\(id)")        // GET /members/a%2F..%2F..%2Fadmin
/// Request<Member>.get("/members/\(id)/photos") // one segment, wherever it sits
/// Request<Void>.get("/files/\(path: folder)/index.json") // `path:` keeps the slashes
/// ```
///
/// A value read from outside (a user's input, a server's answer) cannot
/// leave its segment, so it cannot name another resource:
/// - Only RFC 3986's unreserved characters (letters, digits, `-`, `.`, `_`,
///   `~`) of an interpolated value are sent as they are; every other byte is
///   percent-encoded, `/`, `?`, `#` and `%` included, and so are `;`, `=`,
///   `,`, `:` and `@`, which RFC 3986 §3.3 leaves in a segment but which
///   servers read as delimiters inside one (`name;v=1.1`).
/// - A segment made by interpolation that is empty, `.` or `..` fails the
///   request with ``HTTPClientError/invalidRequest(reason:)``: those are not
///   names of their own (an empty segment is skipped by many servers, and
///   dot-segments are removed, RFC 3986 §5.2.4). Percent-encoding a dot
///   would not help: URL parsers read `%2E%2E` as `..` too (WHATWG URL).
///
/// The literal text of the path is escaped as a path (slashes kept), as a
/// `String` path is. To interpolate a piece of path with its slashes (a
/// prefix, a folder), write `\(path: value)`. A path held in a `String`
/// variable is a whole path: to build one from values, declare it as a
/// `RequestPath` (`let path: RequestPath = "/members/\(id)"`).
public struct RequestPath: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The path with interpolated values as they are, not yet escaped.
    let text: String
    /// Where the interpolated segment values lie in `text`, as UTF-8 offsets,
    /// in order: empty for a path given whole (no allocation).
    let values: [Range<Int>]

    /// The path with interpolated values as they are, not escaped: what
    /// ``Request/path`` reads.
    public var description: String { text }

    /// A whole path, slashes kept: the same as a `String` path.
    public init(_ path: String) {
        text = path
        values = []
    }

    /// A path without interpolation.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// A path with interpolated segments.
    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        values = stringInterpolation.values
    }

    /// Builds a ``RequestPath`` from a string literal's pieces.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var values: [Range<Int>] = []

        /// Room for the literal text and a few values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
            values.reserveCapacity(interpolationCount)
        }

        /// Literal text: escaped as a path, slashes kept.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// A value, as `String(describing:)` writes it: one path segment,
        /// its `/`, `?`, `#`, `%` and other reserved characters percent-encoded.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            let start = text.utf8.count
            text += String(describing: value)
            values.append(start..<text.utf8.count)
        }

        /// A piece of path, slashes kept: escaped as literal text is.
        public mutating func appendInterpolation(path value: some StringProtocol) {
            text += value
        }
    }

    /// Which bytes of `text` belong to interpolated values.
    private func valueBytes(count: Int) -> [Bool] {
        var inValue = [Bool](repeating: false, count: count)
        for range in values {
            for offset in range { inValue[offset] = true }
        }
        return inValue
    }

    /// Whether `byte` occurs in the path outside interpolated values.
    func literalContains(_ byte: UInt8) -> Bool {
        guard !values.isEmpty else { return text.utf8.contains(byte) }
        let inValue = valueBytes(count: text.utf8.count)
        return zip(text.utf8, inValue).contains { $0 == byte && !$1 }
    }

    /// Appends the path escaped: literal text with `isAllowedInLiteral`'s
    /// bytes kept, interpolated values with only unreserved ones kept.
    /// Throws when a segment made by interpolation is empty, `.` or `..`.
    func appendEscaped(keeping isAllowedInLiteral: (UInt8) -> Bool, to target: inout String) throws {
        guard !values.isEmpty else {
            RequestTarget.append(text, keeping: isAllowedInLiteral, to: &target)
            return
        }
        let bytes = Array(text.utf8)
        let inValue = valueBytes(count: bytes.count)
        // A segment runs up to a literal `/`; it was made by interpolation
        // when a value lies in it, an empty one included.
        var segmentStart = 0
        for end in 0...bytes.count where end == bytes.count || (bytes[end] == UInt8(ascii: "/") && !inValue[end]) {
            let segment = bytes[segmentStart..<end]
            let madeByValue =
                inValue[segmentStart..<end].contains(true)
                || values.contains { $0.isEmpty && (segmentStart...end).contains($0.lowerBound) }
            if madeByValue, segment.isEmpty || segment.elementsEqual([0x2E]) || segment.elementsEqual([0x2E, 0x2E]) {
                throw HTTPClientError.invalidRequest(
                    reason: "The path \(text) has an interpolated segment that is empty, '.' or '..'"
                )
            }
            segmentStart = end + 1
        }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count * 3)
        for (byte, isValue) in zip(bytes, inValue) {
            if isValue ? RequestTarget.isUnreserved(byte) : isAllowedInLiteral(byte) {
                escaped.append(byte)
            } else {
                RequestTarget.appendPercentEncoded(byte, to: &escaped)
            }
        }
        target += String(decoding: escaped, as: UTF8.self)
    }
}
