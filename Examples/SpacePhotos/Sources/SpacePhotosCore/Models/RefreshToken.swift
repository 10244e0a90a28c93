/// The token the server issues beside an ``IDToken``: it buys a new ID token
/// without the password, once (each refresh returns a new one).
///
/// Redacted from descriptions and mirrors, like ``IDToken``.
public struct RefreshToken: RawRepresentable, Hashable, Sendable, Codable {
    /// The token as the server sent it: read it only to send or store it.
    public let rawValue: String

    /// Wraps a token the server issued.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension RefreshToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `RefreshToken(redacted)`: never the token.
    public var description: String { "RefreshToken(redacted)" }
    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
    /// A mirror without children, so `dump` and reflection never show the token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
