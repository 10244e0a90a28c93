import Foundation
import HTTPTypes

/// A description of one HTTP request whose response decodes to `Response`.
///
/// `Response` picks the decoding: any `Decodable` type is decoded as JSON,
/// `Data` and `String` are the raw body, and `Void` ignores the body.
///
/// ```swift
/// enum MemberAPI {
///     static func me() -> Request<User> { .get("/members/me") }
///     static func logIn(_ credentials: Credentials) -> Request<TokenResponse> {
///         .post("/auth/login", body: .json(credentials))
///     }
/// }
/// let user = try await client.send(MemberAPI.me()).value
/// ```
public struct Request<Response>: Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// A path appended to the client's base URL (`"/members/me"`), or an
    /// absolute URL with a scheme and a host (`"https://example.com/x"`), used
    /// as it is. Not percent-encoded (the client encodes it); no `?` — query
    /// items go in ``query``.
    ///
    /// Build absolute URLs from data you trust only: the client's middleware
    /// (an authentication header, say) applies to whatever host they name.
    public var path: String
    /// Query items appended to the URL, in order.
    public var query: [URLQueryItem]
    /// Header fields for this request; they override the client's defaults.
    public var headerFields: HTTPFields
    /// The body, if any.
    public var body: RequestBody?
    /// The status codes that count as success; `nil` uses the client's.
    public var acceptableStatusCodes: Range<Int>?
    /// How long the request may take, up to the whole response being
    /// received (for ``HTTPClient/stream(_:)``, up to the response head);
    /// `nil` uses the client's ``HTTPClient/Configuration/timeout``.
    public var timeout: Duration?
    /// The largest response body accepted; `nil` uses the client's.
    public var maximumResponseSize: Int?

    /// Creates a request.
    public init(
        method: HTTPRequest.Method = .get,
        path: String,
        query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:],
        body: RequestBody? = nil,
        acceptableStatusCodes: Range<Int>? = nil,
        timeout: Duration? = nil,
        maximumResponseSize: Int? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headerFields = headerFields
        self.body = body
        self.acceptableStatusCodes = acceptableStatusCodes
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// A `GET` request.
    public static func get(_ path: String, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        Self(method: .get, path: path, query: query, headerFields: headerFields)
    }

    /// A `POST` request.
    public static func post(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .post, path: path, headerFields: headerFields, body: body)
    }

    /// A `PUT` request.
    public static func put(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .put, path: path, headerFields: headerFields, body: body)
    }

    /// A `PATCH` request.
    public static func patch(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .patch, path: path, headerFields: headerFields, body: body)
    }

    /// A `HEAD` request.
    public static func head(_ path: String, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        Self(method: .head, path: path, query: query, headerFields: headerFields)
    }

    /// A `DELETE` request.
    public static func delete(_ path: String, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .delete, path: path, headerFields: headerFields)
    }

    /// A copy with `value` set for `name`.
    public func header(_ name: HTTPField.Name, _ value: String) -> Self {
        var copy = self
        copy.headerFields[name] = value
        return copy
    }

    /// A copy that fails with ``HTTPClientError/timedOut(after:)`` after `timeout`.
    public func timeout(_ timeout: Duration) -> Self {
        var copy = self
        copy.timeout = timeout
        return copy
    }

    /// A copy that accepts `codes` as success.
    public func accepting(_ codes: Range<Int>) -> Self {
        var copy = self
        copy.acceptableStatusCodes = codes
        return copy
    }

    /// A copy with `items` appended to the query.
    public func query(_ items: URLQueryItem...) -> Self {
        var copy = self
        copy.query += items
        return copy
    }
}
