import Crypto
import Foundation

/// An HTTP entity tag (`ETag`), and the `If-None-Match` test that turns a
/// repeated request into a 304 Not Modified.
struct EntityTag: Sendable, Equatable {
    /// The tag without its quotes.
    let opaque: String

    init(_ opaque: String) {
        self.opaque = opaque
    }

    /// A strong tag naming `bytes` by their SHA-256, prefixed with `prefix`.
    static func digest(of bytes: some DataProtocol, prefix: String) -> EntityTag {
        EntityTag(prefix + SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined())
    }

    /// The `ETag` header value.
    var headerValue: String { "\"\(opaque)\"" }

    /// Whether an `If-None-Match` header value names this tag (or is `*`),
    /// using the weak comparison RFC 9110 §13.1.2 asks for. A malformed
    /// header matches nothing, so the client gets the full response.
    func isMatched(byIfNoneMatch header: String?) -> Bool {
        guard let header else { return false }
        if header.trimmingCharacters(in: .whitespaces) == "*" { return true }
        return Self.parseList(header)?.contains(opaque) ?? false
    }

    /// The opaque parts of a list of entity tags (`"a", W/"b"`); nil when malformed.
    static func parseList(_ header: String) -> [String]? {
        var tags: [String] = []
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { return tags }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { return nil }
            tags.append(String(rest[..<close]))
            rest = rest[rest.index(after: close)...]
        }
    }
}
