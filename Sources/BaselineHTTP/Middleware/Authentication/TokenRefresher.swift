import BaselineConcurrency

/// Turns any number of 401s for one token into a single refresh.
///
/// Requests rejected with the same token while its refresh runs wait for that
/// refresh (a ``TaskCoalescer`` keyed by the rejected token, which lets the
/// refresh finish even if every waiting request is cancelled). A request
/// rejected with a token that was already refreshed, because its 401 arrived
/// after the refresh ended, gets the newest token without a second refresh.
final class TokenRefresher: Sendable {
    /// Tokens already replaced, and the newest replacement.
    private struct History {
        /// The most recently replaced tokens; a few suffice, as a token is
        /// only seen again from requests in flight when it was replaced.
        var replaced: [String] = []
        var newest: String?

        func replacement(for rejected: String) -> String? {
            replaced.contains(rejected) ? newest : nil
        }

        mutating func record(_ rejected: String, replacedBy fresh: String) {
            replaced.append(rejected)
            if replaced.count > 16 { replaced.removeFirst(replaced.count - 16) }
            newest = fresh
        }
    }

    let provider: any AccessTokenProvider
    private let refreshes = TaskCoalescer<String, String>(cancelsAbandonedWork: false)
    private let history = LockedValue(History())

    init(provider: any AccessTokenProvider) {
        self.provider = provider
    }

    /// The token to use instead of `rejected`.
    ///
    /// - Throws: ``HTTPClientError/authenticationFailed(_:)`` with ``AuthenticationError/refreshFailed(underlying:)``, or
    ///   `CancellationError` when the calling task is cancelled.
    func replacement(for rejected: String) async throws -> String {
        do {
            return try await refreshes.value(for: rejected) { [provider, history] in
                // Checked inside the shared run, so that a request whose 401
                // arrives just after a refresh ended cannot start another.
                if let known = history.withLock({ $0.replacement(for: rejected) }) { return known }
                let fresh = try await provider.refreshAccessToken(rejected: rejected)
                history.withLock { $0.record(rejected, replacedBy: fresh) }
                return fresh
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
