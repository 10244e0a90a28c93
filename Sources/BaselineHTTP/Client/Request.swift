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
    /// Values interpolated into a path literal (`.get("/members/\(id)")`)
    /// are one segment each, escaped as ``RequestPath`` says; reading this
    /// property gives them as they are, and setting it replaces the whole
    /// path with a plain one.
    ///
    /// Build absolute URLs from data you trust only: the client's middleware
    /// (an authentication header, say) applies to whatever host they name.
    public var path: String {
        get { pathValue.text }
        set { pathValue = RequestPath(newValue) }
    }
    /// The path, with where its interpolated segments lie.
    var pathValue: RequestPath
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

    /// Creates a request whose path interpolates values as segments (see
    /// ``RequestPath``).
    public init(
        method: HTTPRequest.Method = .get,
        path: RequestPath,
        query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:],
        body: RequestBody? = nil,
        acceptableStatusCodes: Range<Int>? = nil,
        timeout: Duration? = nil,
        maximumResponseSize: Int? = nil
    ) {
        self.method = method
        self.pathValue = path
        self.query = query
        self.headerFields = headerFields
        self.body = body
        self.acceptableStatusCodes = acceptableStatusCodes
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// Creates a request whose path is a whole path held in a string.
    @_disfavoredOverload
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
        self.init(
            method: method,
            path: RequestPath(path),
            query: query,
            headerFields: headerFields,
            body: body,
            acceptableStatusCodes: acceptableStatusCodes,
            timeout: timeout,
            maximumResponseSize: maximumResponseSize
        )
    }

    /// A `GET` request; values interpolated into `path` are one segment each.
    public static func get(_ path: RequestPath, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        Self(method: .get, path: path, query: query, headerFields: headerFields)
    }

    /// A `POST` request; values interpolated into `path` are one segment each.
    public static func post(_ path: RequestPath, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .post, path: path, headerFields: headerFields, body: body)
    }

    /// A `PUT` request; values interpolated into `path` are one segment each.
    public static func put(_ path: RequestPath, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .put, path: path, headerFields: headerFields, body: body)
    }

    /// A `PATCH` request; values interpolated into `path` are one segment each.
    public static func patch(_ path: RequestPath, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .patch, path: path, headerFields: headerFields, body: body)
    }

    /// A `HEAD` request; values interpolated into `path` are one segment each.
    public static func head(_ path: RequestPath, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        Self(method: .head, path: path, query: query, headerFields: headerFields)
    }

    /// A `DELETE` request; values interpolated into `path` are one segment each.
    public static func delete(_ path: RequestPath, headerFields: HTTPFields = [:]) -> Self {
        Self(method: .delete, path: path, headerFields: headerFields)
    }

    // The overloads for a path held in a string, a whole path, are
    // disfavoured: a string literal, interpolated or not, is a `RequestPath`.

    /// A `GET` request to a whole path held in a string.
    @_disfavoredOverload
    public static func get(_ path: String, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        get(RequestPath(path), query: query, headerFields: headerFields)
    }

    /// A `POST` request to a whole path held in a string.
    @_disfavoredOverload
    public static func post(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        post(RequestPath(path), body: body, headerFields: headerFields)
    }

    /// A `PUT` request to a whole path held in a string.
    @_disfavoredOverload
    public static func put(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        put(RequestPath(path), body: body, headerFields: headerFields)
    }

    /// A `PATCH` request to a whole path held in a string.
    @_disfavoredOverload
    public static func patch(_ path: String, body: RequestBody? = nil, headerFields: HTTPFields = [:]) -> Self {
        patch(RequestPath(path), body: body, headerFields: headerFields)
    }

    /// A `HEAD` request to a whole path held in a string.
    @_disfavoredOverload
    public static func head(_ path: String, query: [URLQueryItem] = [], headerFields: HTTPFields = [:]) -> Self {
        head(RequestPath(path), query: query, headerFields: headerFields)
    }

    /// A `DELETE` request to a whole path held in a string.
    @_disfavoredOverload
    public static func delete(_ path: String, headerFields: HTTPFields = [:]) -> Self {
        delete(RequestPath(path), headerFields: headerFields)
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
