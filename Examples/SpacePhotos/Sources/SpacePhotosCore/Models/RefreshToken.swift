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
    public var description: String { "RefreshToken(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
