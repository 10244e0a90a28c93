import HTTPTypes

/// Sends `Authorization: Bearer <token>` with requests, and refreshes the token
/// once when the server rejects it.
///
/// ```swift
/// let tokens = SessionTokens(authAPI: authAPI)   // an AccessTokenProvider
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     RetryMiddleware(),
///     BearerAuthentication(provider: tokens),
/// ])
/// ```
///
/// On a 401 the middleware asks the provider for a new token and sends the
/// request once more with it:
/// - **One refresh for all.** However many requests the server rejects, the
///   provider refreshes once at a time; the others wait for that refresh. A
///   request rejected with a token the provider has since replaced gets the
///   current token without a refresh. Refreshes never overlap, so a rotating
///   refresh token is never presented twice.
/// - **No loop.** A request is retried at most once; a second 401 is returned
///   as it is (the client reports it as an unacceptable status).
/// - **Failures reach every waiter** as ``HTTPClientError/authenticationFailed(_:)`` (``AuthenticationError/refreshFailed(underlying:)``);
///   the next 401 tries again. Cancellation stays `CancellationError`, and a
///   cancelled request does not cancel the refresh others wait for.
/// - A request whose body cannot be sent again (a stream) is not retried: its
///   401 is returned.
/// - A request that already has an `Authorization` field, or that
///   `authenticates` declines, passes through untouched.
///
/// Copies of the middleware share their refresh state; two separately made
/// instances with one provider would refresh separately.
///
/// A token that never changes (a test's, a service account's, one the app
/// refreshes elsewhere) needs no provider:
///
/// ```swift
/// let client = HTTPClient(baseURL: apiURL, middleware: [BearerAuthentication(token: token)])
/// ```
///
/// Ordering: inside ``RetryMiddleware`` (each attempt reads the current
/// token), outside the cache and coalescing (so that coalescing keys include
/// the token, and a revalidation that gets a 401 is refreshed and retried).
public struct BearerAuthentication: HTTPMiddleware {
    private let refresher: TokenRefresher
    private let authenticates: @Sendable (HTTPRequest) -> Bool
    /// False for a fixed token: a 401 is the answer, there is nothing to refresh.
    private let refreshes: Bool

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - provider: Gives and refreshes tokens.
    ///   - authenticates: Which requests get a token; by default all. Limit it
    ///     to your API's host when the client also sends requests elsewhere:
    ///     `{ $0.authority == "api.example.com" }`.
    public init(
        provider: some AccessTokenProvider,
        authenticates: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
    ) {
        self.refresher = TokenRefresher(provider: provider)
        self.authenticates = authenticates
        self.refreshes = true
    }

    /// Creates the middleware for a token that does not change: every
    /// request carries it, and a 401 is returned as it is (there is no
    /// refresh to try).
    ///
    /// - Parameters:
    ///   - token: The bearer token, sent as `Authorization: Bearer <token>`.
    ///   - authenticates: Which requests get the token; by default all.
    public init(
        token: String,
        authenticates: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
    ) {
        self.refresher = TokenRefresher(provider: FixedToken(token: token))
        self.authenticates = authenticates
        self.refreshes = false
    }

    /// Adds the bearer token to `request` and, after a 401, sends it once more with a refreshed token.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        guard request.headerFields[.authorization] == nil, authenticates(request),
            let token = try await currentToken()
        else { return try await next(request, body) }

        let (response, responseBody) = try await next(Self.request(request, bearing: token), body)
        guard refreshes, response.status == .unauthorized, body.isReplayable else { return (response, responseBody) }
        await responseBody.releaseUnread()
        let fresh = try await refresher.replacement(for: token)
        return try await next(Self.request(request, bearing: fresh), body)
    }

    private func currentToken() async throws -> String? {
        do {
            return try await refresher.provider.accessToken()
        } catch let error as CancellationError {
            throw error
        } catch {
            throw HTTPClientError.authenticationFailed(.tokenUnavailable(underlying: error))
        }
    }

    private static func request(_ request: HTTPRequest, bearing token: String) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }

    /// For tests: suspends until `count` requests wait for a token refresh.
    package func waitUntilRefreshWaiting(atLeast count: Int) async throws {
        try await refresher.waitUntilWaiting(atLeast: count)
    }
}

/// The provider of ``BearerAuthentication/init(token:authenticates:)``.
private struct FixedToken: AccessTokenProvider {
    let token: String

    func accessToken() async throws -> String? { token }

    // Never called: the middleware does not refresh a fixed token.
    func refreshAccessToken(rejected: String) async throws -> String { token }
}
