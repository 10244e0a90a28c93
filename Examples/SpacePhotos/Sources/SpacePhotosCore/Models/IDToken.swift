/// The token the server issues at login; it proves who the holder is.
///
/// Its `description`, `debugDescription` and mirror are redacted, so
/// interpolating a token into a log line or an error message, or `dump`ing a
/// value that holds one, never shows it. Read ``rawValue`` only where the
/// token is sent or stored.
public struct IDToken: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}

extension IDToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "IDToken(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// An id and password, as typed. The password is redacted from descriptions.
public struct Credentials: Sendable, Hashable, CustomStringConvertible {
    public var id: User.ID
    public var password: String

    public init(id: User.ID, password: String) {
        self.id = id
        self.password = password
    }

    public var description: String { "Credentials(id: \(id), password: redacted)" }
}
