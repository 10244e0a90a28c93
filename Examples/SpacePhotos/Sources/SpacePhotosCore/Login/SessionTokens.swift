import BaselineHTTP
import BaselinePersistence
import Foundation
import Logging

/// The signed-in session's tokens, as the HTTP client's
/// ``BearerAuthentication`` middleware asks for them: the ID token to send,
/// and a refresh (`POST /auth/refresh`) when the server rejects it.
///
/// ```swift
/// let tokens = SessionTokens(directory: dataDirectory, authAPI: authAPI)
/// let client = HTTPClient(baseURL: serverURL, middleware: [BearerAuthentication(provider: tokens)])
/// let me = try await MemberAPI(client: client).me()    // a 401 refreshes once, then retries
/// ```
///
/// Both tokens live in private files (``SecureValueStore``, mode 0600):
/// `id-token.json` and `refresh-token.json` in the directory given. The
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
/// ``SessionError/notLoggedIn``: its tokens belong to the session that
/// ended and are never written. Writes of the token files never interleave,
/// so a logout cannot leave half a session behind.
public actor SessionTokens: AccessTokenProvider {
    /// The file the ID token is kept in.
    public nonisolated var idTokenFile: URL { idTokens.fileURL }
    private let idTokens: SecureValueStore<IDToken>
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

    /// Tokens kept in `directory` (`id-token.json`, `refresh-token.json`),
    /// refreshed with `refresh` (a double in tests).
    public init(
        directory: URL,
        refresh: @escaping @Sendable (RefreshToken) async throws -> AuthAPI.Grant,
        logger: Logger = Logger(label: "spacephotos.session")
    ) {
        self.idTokens = SecureValueStore(fileURL: directory.appendingPathComponent("id-token.json"), logger: logger)
        self.refreshTokens = SecureValueStore(
            fileURL: directory.appendingPathComponent("refresh-token.json"),
            logger: logger
        )
        self.refresh = refresh
        self.logger = logger
    }

    /// Tokens kept in `directory`, refreshed through the server's `POST /auth/refresh`.
    public init(directory: URL, authAPI: AuthAPI, logger: Logger = Logger(label: "spacephotos.session")) {
        self.init(directory: directory, refresh: authAPI.refresh(_:), logger: logger)
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
        try await storedIDToken()?.rawValue
    }

    /// The stored ID token; an empty one is no token (the file was not
    /// written by this app), and a damaged file.
    private func storedIDToken() async throws(SecureValueStoreError) -> IDToken? {
        guard let token = try await idTokens.load() else { return nil }
        guard !token.rawValue.isEmpty else { throw .corrupt(path: idTokens.fileURL.path) }
        return token
    }

    /// Trades the stored refresh token for new tokens, or joins the trade
    /// already running.
    ///
    /// - Returns: The new ID token, or the stored one when it is no longer
    ///   `rejected` (a login or a refresh replaced it meanwhile).
    /// - Throws: ``SessionError/notLoggedIn`` without a refresh token, or
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
        if let current = try await storedIDToken()?.rawValue, current != rejected { return current }
        guard let refreshToken = try await refreshTokens.load() else { throw SessionError.notLoggedIn }
        let grant = try await refresh(refreshToken)
        try await writing {
            guard session == startedIn else {
                logger.notice("Discarded a refresh that ended after its session did")
                throw SessionError.notLoggedIn
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
        try await idTokens.save(grant.idToken)
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

    /// Replaces the stored ID token (the refresh token stays): for demos and
    /// tests of an ID token the server no longer accepts.
    package func replaceIDTokenForTesting(_ token: IDToken) async throws {
        try await writing { try await idTokens.save(token) }
    }
}
