/// Why an authentication middleware could not authenticate a request; it
/// reaches callers as ``HTTPClientError/authenticationFailed(_:)``.
///
/// Task cancellation is never wrapped: it stays `CancellationError`.
public enum AuthenticationError: Error, Sendable {
    /// The token provider failed to give a token.
    case tokenUnavailable(underlying: any Error)
    /// Refreshing a rejected token failed. Every request waiting for that
    /// refresh fails with this error; the next 401 tries a refresh again.
    case refreshFailed(underlying: any Error)
}

extension AuthenticationError: CustomStringConvertible {
    /// What went wrong, with the underlying error's description.
    public var description: String {
        switch self {
        case let .tokenUnavailable(underlying): "No access token: \(underlying)"
        case let .refreshFailed(underlying): "Refreshing the access token failed: \(underlying)"
        }
    }
}
