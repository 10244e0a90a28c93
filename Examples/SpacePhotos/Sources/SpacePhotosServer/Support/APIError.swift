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
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The JSON document of an error answer.
    public struct Document: Codable, Sendable, Equatable {
        public struct Detail: Codable, Sendable, Equatable {
            public var code: String
            public var message: String
        }
        public var error: Detail
    }

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
