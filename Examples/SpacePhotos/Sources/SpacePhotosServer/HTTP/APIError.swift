import Foundation
import HTTPTypes
import Hummingbird

/// An error answer of the example server: a status, a machine-readable code
/// and a message, sent as `{"error": {"code": …, "message": …}}`.
///
/// Every error the server sends has this shape, including those Hummingbird
/// raises itself (bad JSON, body too large, unknown route): see
/// ``JSONErrorMiddleware``.
public struct APIError: Error, HTTPResponseError, Sendable {
    /// The response status.
    public var status: HTTPResponse.Status
    /// A stable, machine-readable code such as `invalid_credentials`, for
    /// clients to branch on.
    public var code: String
    /// A sentence for people: what went wrong and, where it helps, what to do.
    public var message: String
    /// Extra header fields, such as `Retry-After` on 429.
    public var headers: HTTPFields

    /// An error answer; `Content-Type` is set when the response is made.
    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The 426 for a plain GET of the WebSocket at `path`.
    static func upgradeRequired(at path: String) -> APIError {
        APIError(
            .upgradeRequired,
            code: "upgrade_required",
            message: "\(path) is a WebSocket: open it with an upgrade request (Upgrade: websocket).",
            headers: [.upgrade: "websocket"]
        )
    }

    /// The JSON document of an error answer.
    public struct Document: Codable, Sendable, Equatable {
        /// The error itself, under the document's `error` key.
        public struct Detail: Codable, Sendable, Equatable {
            /// The machine-readable code.
            public var code: String
            /// The sentence for people.
            public var message: String
        }
        /// The error.
        public var error: Detail
    }

    /// The JSON answer Hummingbird sends for this error.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = try JSONEncoder().encode(Document(error: .init(code: code, message: message)))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func invalidCredentials() -> APIError {
        APIError(.unauthorized, code: "invalid_credentials", message: "The id or password is incorrect.")
    }

    static func unauthenticated(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthenticated", message: message, headers: [.wwwAuthenticate: "Bearer"])
    }
}
