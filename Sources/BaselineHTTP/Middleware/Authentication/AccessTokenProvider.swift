/// Where ``BearerAuthentication`` gets access tokens, and how it replaces one
/// the server rejected.
///
/// ```swift
/// actor SessionTokens: AccessTokenProvider {
///     private var token: String?
///     private let authAPI: AuthAPI
///
///     func accessToken() -> String? { token }
///
///     func refreshAccessToken(rejected: String) async throws -> String {
///         let fresh = try await authAPI.refresh()   // uses the refresh token
///         token = fresh
///         return fresh
///     }
/// }
/// ```
///
/// After a successful refresh, ``accessToken()`` should return the new token,
/// so that requests starting afterwards use it without a 401 first.
public protocol AccessTokenProvider: Sendable {
    /// The token to send now, or `nil` to send requests unauthenticated (no
    /// one is logged in).
    func accessToken() async throws -> String?

    /// A new token to replace `rejected`, which the server answered 401 to.
    ///
    /// ``BearerAuthentication`` calls it one refresh at a time, however many
    /// requests were rejected, and only while ``accessToken()`` still returns
    /// `rejected` (a request rejected with an older token gets the current
    /// one instead). It lets the refresh finish even when those requests are
    /// cancelled (a refresh that rotates the refresh token must not be cut
    /// off half-way).
    func refreshAccessToken(rejected: String) async throws -> String
}
