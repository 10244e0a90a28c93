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

    /// Creates a request.
    public init(
        method: HTTPRequest.Method = .get,
        path: String,
        query: [URLQueryItem] = [],
        headerFields: HTTPFields = [:],
        body: RequestBody? = nil,
        acceptableStatusCodes: Range<Int>? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headerFields = headerFields
        self.body = body
        self.acceptableStatusCodes = acceptableStatusCodes
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
}

/// The body of a ``Request``.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case json(any Encodable & Sendable)
    }

    let content: Content
    /// The `Content-Type` sent with the body.
    public let contentType: String

    /// `value` encoded as JSON with the client's encoder, when the request is sent.
    public static func json(_ value: some Encodable & Sendable) -> RequestBody {
        RequestBody(content: .json(value), contentType: "application/json")
    }

    /// Raw bytes of the given content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }
}
