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
/// server rotates the refresh token on each use, and the new one is stored
/// before the new ID token is handed out.
///
/// **One refresh token, presented once.** The middleware asks for one
/// refresh at a time, and this actor holds to it for any caller: a refresh
/// asked for while one runs joins it, and a token rejected after it was
/// replaced gets the current one. The server takes a refresh token presented
/// twice for a stolen one and revokes the session.
///
/// **A session ends with its tokens.** Logging out, or logging in again,
/// while a refresh is on the network ends that refresh with
/// ``AuthServiceError/notLoggedIn``: its tokens belong to the session that
/// ended and are never written. Writes of the token files never interleave,
/// so a logout cannot leave half a session behind.
public actor SessionTokens: AccessTokenProvider {
    /// Where the ID token is kept.
    public let idTokens: IDTokenStore
    private let refreshTokens: SecureValueStore<RefreshToken>
    private let refresh: @Sendable (RefreshToken) async throws -> AuthAPI.Grant
    private let logger: Logger
    /// How many refreshes this session has made (the demo shows it).
    public private(set) var refreshCount = 0
    /// Counts logins and logouts: a refresh started in one session must not
    /// write its tokens into the next.
    private var session = 0
    /// The refresh on the network, which every other caller joins.
    private var refreshing: Task<String, any Error>?
    /// Whether the token files are being written, and who waits to write.
    private var isWriting = false
    private var writers: [CheckedContinuation<Void, Never>] = []

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

    /// Keeps the tokens of a login: a new session, so a refresh still running
    /// for the previous one is discarded.
    public func save(_ grant: AuthAPI.Grant) async throws {
        try await writing {
            session += 1
            try await store(grant)
        }
    }

    /// Forgets both tokens (logging out); a refresh still running is discarded.
    public func clear() async throws {
        try await writing {
            session += 1
            try await refreshTokens.clear()
            try await idTokens.clear()
        }
    }

    /// The stored ID token, or `nil` when no one is logged in.
    public func accessToken() async throws -> String? {
        try await idTokens.load()?.rawValue
    }

    /// Trades the stored refresh token for new tokens, or joins the trade
    /// already running.
    ///
    /// - Returns: The new ID token, or the stored one when it is no longer
    ///   `rejected` (a login or a refresh replaced it meanwhile).
    /// - Throws: ``AuthServiceError/notLoggedIn`` without a refresh token, or
    ///   when the user logged out or in again before the refresh ended;
    ///   ``LoginError`` when the server refuses it (log in again).
    public func refreshAccessToken(rejected: String) async throws -> String {
        if let refreshing { return try await refreshing.value }
        // Set before this actor suspends, so a second caller always joins.
        let refresh = Task { try await self.performRefresh(rejected: rejected) }
        refreshing = refresh
        return try await refresh.value
    }

    private func performRefresh(rejected: String) async throws -> String {
        defer { refreshing = nil }
        let startedIn = session
        if let current = try await idTokens.load()?.rawValue, current != rejected { return current }
        guard let refreshToken = try await refreshTokens.load() else { throw AuthServiceError.notLoggedIn }
        let grant = try await refresh(refreshToken)
        try await writing {
            guard session == startedIn else {
                logger.notice("Discarded a refresh that ended after its session did")
                throw AuthServiceError.notLoggedIn
            }
            try await store(grant)
        }
        refreshCount += 1
        logger.info("Refreshed the ID token", metadata: ["refreshes": "\(refreshCount)"])
        return grant.idToken.rawValue
    }

    /// Writes both tokens; the refresh token first, so the ID token it pairs
    /// with is never handed out without it.
    private func store(_ grant: AuthAPI.Grant) async throws {
        if let refreshToken = grant.refreshToken {
            try await refreshTokens.save(refreshToken)
        } else {
            try await refreshTokens.clear()
        }
        try await idTokens.update(grant.idToken)
    }

    /// Runs `body` with the token files to itself: the writes of a login, a
    /// logout and a refresh suspend between the two files, and must not
    /// interleave.
    private func writing<T>(_ body: () async throws -> T) async throws -> T {
        while isWriting { await withCheckedContinuation { writers.append($0) } }
        isWriting = true
        defer {
            isWriting = false
            if !writers.isEmpty { writers.removeFirst().resume() }
        }
        return try await body()
    }

    /// The stored refresh token; for tests that play another device.
    package func refreshTokenForTesting() async throws -> RefreshToken? {
        try await refreshTokens.load()
    }
}
