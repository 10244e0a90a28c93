import BaselineHTTP
import Foundation

/// The login and token refresh endpoints, through Baseline's ``HTTPClient``.
///
/// ```swift
/// let api = AuthAPI(client: HTTPClient(baseURL: serverURL))
/// let token = try await api.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
/// ```
public struct AuthAPI: Sendable {
    struct LoginBody: Codable, Sendable {
        var id: String
        var password: String
    }

    struct TokenBody: Codable, Sendable {
        var idToken: IDToken
        var expiresIn: Int
        /// Absent from servers that predate refresh tokens.
        var refreshToken: RefreshToken?
    }

    struct RefreshBody: Codable, Sendable {
        var refreshToken: RefreshToken
    }

    /// What a login or a refresh returns.
    public struct Grant: Sendable, Equatable {
        /// Proves who the holder is, to the member endpoints.
        public var idToken: IDToken
        /// Seconds until the ID token expires.
        public var expiresIn: Int
        /// The token for the next ``AuthAPI/refresh(_:)``; nil when the server issues none.
        public var refreshToken: RefreshToken?

        /// A grant with the given tokens (for test doubles; the API decodes them).
        public init(idToken: IDToken, expiresIn: Int, refreshToken: RefreshToken?) {
            self.idToken = idToken
            self.expiresIn = expiresIn
            self.refreshToken = refreshToken
        }

        init(_ body: TokenBody) {
            self.init(idToken: body.idToken, expiresIn: body.expiresIn, refreshToken: body.refreshToken)
        }
    }

    /// The client the requests go through; it needs no authentication middleware.
    public let client: HTTPClient

    /// The endpoints on `client`, whose base URL is the server's.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Logs in and returns the ID token.
    ///
    /// - Throws: ``LoginError``, or `CancellationError` when the task is cancelled.
    public func logIn(for id: User.ID, with password: String) async throws -> IDToken {
        try await grant(for: id, with: password).idToken
    }

    /// Logs in and returns the ID token with its lifetime and the refresh token.
    ///
    /// - Throws: ``LoginError``, or `CancellationError` when the task is cancelled.
    public func grant(for id: User.ID, with password: String) async throws -> Grant {
        let request = Request<TokenBody>.post(
            "/auth/login",
            body: .json(LoginBody(id: id.rawValue, password: password))
        )
        do {
            return Grant(try await client.send(request).value)
        } catch let error as HTTPClientError {
            throw LoginError(error)
        }
    }

    /// Trades `refreshToken` for a new ID token and a new refresh token; the
    /// one passed in stops working.
    ///
    /// - Throws: ``LoginError/invalidCredentials`` when the refresh token is
    ///   unknown, expired or spent (log in again), other ``LoginError``s, or
    ///   `CancellationError` when the task is cancelled.
    public func refresh(_ refreshToken: RefreshToken) async throws -> Grant {
        let request = Request<TokenBody>.post("/auth/refresh", body: .json(RefreshBody(refreshToken: refreshToken)))
        do {
            return Grant(try await client.send(request).value)
        } catch let error as HTTPClientError {
            throw LoginError(error)
        }
    }
}
