/// A route the example server registers: its method and path template,
/// path parameters written `{name}` as in OpenAPI (`GET /images/{name}`).
public struct RegisteredRoute: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP method, upper case (`GET`).
    public var method: String
    /// The path template, starting with `/`.
    public var path: String

    /// Creates a route entry.
    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    /// `GET /photos`.
    public var description: String { "\(method) \(path)" }
}
