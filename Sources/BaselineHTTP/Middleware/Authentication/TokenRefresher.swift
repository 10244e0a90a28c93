import BaselineConcurrency

/// Turns any number of 401s into one refresh at a time.
///
/// Every rejected request waits for the refresh in flight, whichever token it
/// was rejected with (a ``TaskCoalescer`` under one key, which lets the
/// refresh finish even if every waiting request is cancelled). Refreshes
/// never overlap: a server that rotates refresh tokens treats a second
/// refresh presenting the same refresh token as reuse and revokes the whole
/// chain, which two concurrent refreshes for two different rejected tokens
/// would do.
///
/// A request rejected with a token the provider no longer hands out, because
/// a refresh or a login replaced it while the request was in flight, gets the
/// provider's current token without a refresh.
final class TokenRefresher: Sendable {
    /// The one key of the coalescer: all refreshes share one run.
    private struct AnyToken: Hashable, Sendable {}

    let provider: any AccessTokenProvider
    private let refreshes = TaskCoalescer<AnyToken, String>(cancelsAbandonedWork: false)

    init(provider: any AccessTokenProvider) {
        self.provider = provider
    }

    /// The token to use instead of `rejected`.
    ///
    /// - Throws: ``HTTPClientError/authenticationFailed(_:)`` with ``AuthenticationError/refreshFailed(underlying:)``, or
    ///   `CancellationError` when the calling task is cancelled.
    func replacement(for rejected: String) async throws -> String {
        do {
            return try await refreshes.value(for: AnyToken()) { [provider] in
                // Checked inside the shared run, so that a request whose 401
                // arrives just after a refresh ended cannot start another.
                if let current = try await provider.accessToken(), current != rejected { return current }
                return try await provider.refreshAccessToken(rejected: rejected)
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw HTTPClientError.authenticationFailed(.refreshFailed(underlying: error))
        }
    }

    /// For tests: suspends until `count` requests wait for a refresh.
    func waitUntilWaiting(atLeast count: Int) async throws {
        try await refreshes.waitUntilWaiting(atLeast: count)
    }
}
