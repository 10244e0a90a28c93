import BaselineHTTP
import HTTPTypes

/// Why a login failed, in the terms the login screen cares about.
public enum LoginError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The id or password is wrong (401).
    case invalidCredentials
    /// Too many failed attempts for this id (429); try again after the delay.
    case rateLimited(retryAfterSeconds: Int?)
    /// The server failed or answered something unexpected.
    case server(status: Int?)
    /// The server could not be reached.
    case networkUnreachable(reason: String)

    /// Maps a client error of the login request.
    init(_ error: HTTPClientError) {
        switch error {
        case let .unacceptableStatus(head, _):
            self.init(status: head.status, headerFields: head.headerFields)
        case let .transport(underlying):
            self = .networkUnreachable(reason: "\(underlying)")
        case let .timedOut(after):
            self = .networkUnreachable(reason: "no answer within \(after)")
        case .decodingFailed, .responseTooLarge, .invalidRequest, .tooManyRedirects,
            .unacceptableContentType, .authenticationFailed, .fileFailure, .decompressionFailed:
            // The body may hold the token: say what went wrong, not what came.
            self = .server(status: nil)
        }
    }

    /// Maps a login response's status: 401 is wrong credentials, 429 a
    /// lockout (its `Retry-After` in seconds), anything else the server's failure.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields) {
        switch status {
        case .unauthorized:
            self = .invalidCredentials
        case .tooManyRequests:
            self = .rateLimited(retryAfterSeconds: headerFields[.retryAfter].flatMap { Int($0) })
        default:
            self = .server(status: status.code)
        }
    }

    /// The case and its values, for logs: never a token or a password.
    public var description: String {
        switch self {
        case .invalidCredentials: "LoginError.invalidCredentials"
        case let .rateLimited(seconds): "LoginError.rateLimited(retryAfter: \(seconds.map { "\($0) s" } ?? "unknown"))"
        case let .server(status): "LoginError.server(status: \(status.map(String.init) ?? "none"))"
        case let .networkUnreachable(reason): "LoginError.networkUnreachable(\(reason))"
        }
    }
}
