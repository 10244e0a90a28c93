/// The token the server issues at login; it proves who the holder is.
///
/// Its `description`, `debugDescription` and mirror are redacted, so
/// interpolating a token into a log line or an error message, or `dump`ing a
/// value that holds one, never shows it. Read ``rawValue`` only where the
/// token is sent or stored.
public struct IDToken: RawRepresentable, Hashable, Sendable, Codable {
    /// The token as the server sent it: read it only to send or store it.
    public let rawValue: String

    /// Wraps a token the server issued or a file held; nothing is checked here
    /// (``IDTokenStore/load()`` refuses an empty one).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension IDToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `IDToken(redacted)`: never the token.
    public var description: String { "IDToken(redacted)" }
    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
    /// A mirror without children, so `dump` and reflection never show the token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// An id and password, as typed. The password is redacted from descriptions.
public struct Credentials: Sendable, Hashable, CustomStringConvertible {
    /// The member's id, as typed.
    public var id: User.ID
    /// The password, as typed; left out of ``description``.
    public var password: String

    /// Credentials for `id` with `password`.
    public init(id: User.ID, password: String) {
        self.id = id
        self.password = password
    }

    /// The id and `password: redacted`.
    public var description: String { "Credentials(id: \(id), password: redacted)" }
}
