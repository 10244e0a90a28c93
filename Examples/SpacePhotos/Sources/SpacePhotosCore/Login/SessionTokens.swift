import BaselineHTTP
import BaselinePersistence
import Foundation
import Logging

/// The signed-in session's tokens, as the HTTP client's
/// ``BearerAuthentication`` middleware asks for them: the ID token to send,
/// and a refresh (`POST /auth/refresh`) when the server rejects it.
///
/// ```swift
/// let tokens = SessionTokens(idTokens: idTokenStore, refreshTokenFile: dir.appendingPathComponent("refresh-token.json"), authAPI: authAPI)
/// let client = HTTPClient(baseURL: serverURL, middleware: [BearerAuthentication(provider: tokens)])
/// let me = try await MemberAPI(client: client).me()    // a 401 refreshes once, then retries
/// ```
///
/// Both tokens live in private files (``SecureValueStore``, mode 0600). The
/// middleware makes sure concurrent 401s cause one refresh; the server rotates
/// the refresh token on each use, and the new one is stored before the new ID
/// token is handed out.
public actor SessionTokens: AccessTokenProvider {
    /// Where the ID token is kept.
    public let idTokens: IDTokenStore
    private let refreshTokens: SecureValueStore<RefreshToken>
    private let refresh: @Sendable (RefreshToken) async throws -> AuthAPI.Grant
    private let logger: Logger
    /// How many refreshes this session has made (the demo shows it).
    public private(set) var refreshCount = 0

    /// Tokens refreshed with `refresh` (a double in tests).
    public init(
        idTokens: IDTokenStore,
        refreshTokenFile: URL,
        refresh: @escaping @Sendable (RefreshToken) async throws -> AuthAPI.Grant,
        logger: Logger = Logger(label: "spacephotos.session")
    ) {
        self.idTokens = idTokens
        self.refreshTokens = SecureValueStore(fileURL: refreshTokenFile, logger: logger)
        self.refresh = refresh
        self.logger = logger
    }

    /// Tokens refreshed through the server's `POST /auth/refresh`.
    public init(
        idTokens: IDTokenStore,
        refreshTokenFile: URL,
        authAPI: AuthAPI,
        logger: Logger = Logger(label: "spacephotos.session")
    ) {
        self.init(idTokens: idTokens, refreshTokenFile: refreshTokenFile, refresh: authAPI.refresh(_:), logger: logger)
    }

    /// Keeps the tokens of a login or a refresh.
    public func save(_ grant: AuthAPI.Grant) async throws {
        if let refreshToken = grant.refreshToken {
            try await refreshTokens.save(refreshToken)
        } else {
            try await refreshTokens.clear()
        }
        try await idTokens.update(grant.idToken)
    }

    /// Forgets both tokens (logging out).
    public func clear() async throws {
        try await refreshTokens.clear()
        try await idTokens.clear()
    }

    /// The stored ID token, or `nil` when no one is logged in.
    public func accessToken() async throws -> String? {
        try await idTokens.load()?.rawValue
    }

    /// Trades the stored refresh token for new tokens.
    ///
    /// - Throws: ``AuthServiceError/notLoggedIn`` without a refresh token,
    ///   ``LoginError`` when the server refuses it (log in again).
    public func refreshAccessToken(rejected: String) async throws -> String {
        guard let refreshToken = try await refreshTokens.load() else { throw AuthServiceError.notLoggedIn }
        let grant = try await refresh(refreshToken)
        try await save(grant)
        refreshCount += 1
        logger.info("Refreshed the ID token", metadata: ["refreshes": "\(refreshCount)"])
        return grant.idToken.rawValue
    }

    /// The stored refresh token; for tests that play another device.
    package func refreshTokenForTesting() async throws -> RefreshToken? {
        try await refreshTokens.load()
    }
}
