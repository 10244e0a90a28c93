import Foundation
import HTTPTypes

/// Everything that can go wrong with a request, other than cancellation.
///
/// Task cancellation is never wrapped: it surfaces as `CancellationError`, so
/// `catch is CancellationError` works whatever the transport.
public enum HTTPClientError: Error, Sendable {
    /// The request could not be built (a bad path or URL, an unencodable body).
    case invalidRequest(reason: String)
    /// The transport failed: no connection, a reset, a TLS failure.
    case transport(underlying: any Error)
    /// The server answered with a status outside the acceptable range. The head
    /// keeps the status and header fields (`Retry-After`, say), the body the
    /// server's error document.
    case unacceptableStatus(HTTPResponse, body: Data)
    /// The body could not be decoded to the expected type.
    case decodingFailed(underlying: any Error, bodyExcerpt: String)
    /// The response body was larger than the configured maximum.
    case responseTooLarge(limit: Int)
    /// The request did not complete within its timeout.
    case timedOut(after: Duration)
    /// The server redirected more times than the redirect policy allows.
    case tooManyRedirects(limit: Int)
    /// The response's `Content-Type` (`nil` when it had none) is not one a
    /// ``ValidationMiddleware`` accepts. The head keeps the status and header fields.
    case unacceptableContentType(String?, HTTPResponse)
    /// An authentication middleware could not get or refresh a token.
    case authenticationFailed(AuthenticationError)
    /// A download's file could not be written or moved into place.
    case fileFailure(path: String, underlying: any Error)
    /// A compressed response body (`Content-Encoding: gzip` or `deflate`)
    /// could not be inflated: it is corrupt, or it ended before its
    /// compressed data did (a truncated transfer). `reason` says which.
    case decompressionFailed(contentEncoding: String, reason: String)

    /// The response status, where the server answered.
    public var status: HTTPResponse.Status? {
        if case let .unacceptableStatus(head, _) = self { head.status } else { nil }
    }

    /// The response head, where the server answered with an unacceptable
    /// status or content type.
    public var responseHead: HTTPResponse? {
        switch self {
        case let .unacceptableStatus(head, _), let .unacceptableContentType(_, head): head
        default: nil
        }
    }

    /// The response body, where the server answered with an unacceptable status.
    public var responseBody: Data? {
        if case let .unacceptableStatus(_, body) = self { body } else { nil }
    }

    /// The error ``HTTPClient`` throws for a response whose status is not
    /// acceptable: `head`, and the first ``HTTPClient/errorBodyLimit`` bytes
    /// of `body` (what arrived, if it broke off before). For code that
    /// receives responses some other way, such as a generated client, and
    /// reports them as a ``Request`` sent through the client would. Pass a
    /// body nothing has read yet: one read already gives what is left of it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while the
    ///   body arrives; the rest of the body is then discarded.
    public static func unacceptableStatus(_ head: HTTPResponse, reading body: HTTPBody) async throws -> HTTPClientError
    {
        .unacceptableStatus(head, body: try await HTTPClient.errorExcerpt(of: body))
    }

    /// The error ``HTTPClient`` throws for a body it could not decode:
    /// `error`, and the first characters of `body` as the excerpt.
    public static func decodingFailed(_ error: any Error, body: Data) -> HTTPClientError {
        .decodingFailed(underlying: error, bodyExcerpt: excerpt(of: body))
    }

    /// At most `limit` characters of a body, for error messages.
    static func excerpt(of body: Data, limit: Int = 200) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
