import Foundation
import Logging
import SpacePhotosCore

/// Logs in through the API and keeps the token (an ``IDTokenStore``, or the
/// ``SessionTokens`` that the authentication middleware refreshes).
///
/// **Double submission.** A second ``logIn(for:with:)`` while one is in flight
/// is *rejected* with ``AuthServiceError/loginInProgress`` and never reaches the
/// server. Rejecting, rather than joining the running attempt, keeps one owner
/// per attempt: the first caller's task alone decides its cancellation, and a
/// second caller with other credentials never receives someone else's result.
/// (The login screen disables its button while a login runs, so a user does
/// not see this error.)
public actor AuthService {
    /// The network login: `AuthAPI.logIn` in the app, a double in tests.
    public typealias LogIn = @Sendable (User.ID, String) async throws -> IDToken

    private let performLogIn: @Sendable (User.ID, String) async throws -> Void
    private let fetchCurrentMember: @Sendable () async throws -> User
    private let forget: @Sendable () async throws -> Void
    private let logger: Logger
    private var isLoggingIn = false

    /// A service with explicit dependencies (tests pass doubles here): the
    /// token from `logIn` is kept in `store` and sent to `member` by hand.
    public init(
        logIn: @escaping LogIn,
        member: @escaping @Sendable (IDToken) async throws -> User,
        store: IDTokenStore,
        logger: Logger = Logger(label: "spacephotos.auth")
    ) {
        self.performLogIn = { id, password in
            let token = try await logIn(id, password)
            try await store.update(token)
        }
        self.fetchCurrentMember = {
            guard let token = try await store.load() else { throw SessionError.notLoggedIn }
            return try await member(token)
        }
        self.forget = { try await store.clear() }
        self.logger = logger
    }

    /// A service on the real endpoints, with the token sent by hand.
    public init(
        authAPI: AuthAPI,
        memberAPI: MemberAPI,
        store: IDTokenStore,
        logger: Logger = Logger(label: "spacephotos.auth")
    ) {
        self.init(logIn: authAPI.logIn(for:with:), member: memberAPI.me(token:), store: store, logger: logger)
    }

    /// A service whose member requests carry the token through the HTTP
    /// client's ``BearerAuthentication`` middleware (built on `tokens`), so an
    /// expired token is refreshed once and the request retried.
    ///
    /// - Parameters:
    ///   - authAPI: logs in (a client without the authentication middleware).
    ///   - memberAPI: a client with `BearerAuthentication(provider: tokens)`.
    public init(
        authAPI: AuthAPI,
        memberAPI: MemberAPI,
        tokens: SessionTokens,
        logger: Logger = Logger(label: "spacephotos.auth")
    ) {
        self.performLogIn = { id, password in
            try await tokens.save(try await authAPI.grant(for: id, with: password))
        }
        self.fetchCurrentMember = {
            guard try await tokens.accessToken() != nil else { throw SessionError.notLoggedIn }
            return try await memberAPI.me()
        }
        self.forget = { try await tokens.clear() }
        self.logger = logger
    }

    /// Logs in and keeps the token.
    ///
    /// - Throws: ``AuthServiceError/loginInProgress`` while another login runs
    ///   (nothing is sent), the login's errors (``LoginError``), or a failure to
    ///   store the token.
    public func logIn(for id: User.ID, with password: String) async throws {
        guard !isLoggingIn else {
            logger.notice("Rejected a second login while one is in flight", metadata: ["user.id": "\(id)"])
            throw AuthServiceError.loginInProgress
        }
        isLoggingIn = true
        defer { isLoggingIn = false }

        try await performLogIn(id, password)
        logger.info("Logged in", metadata: ["user.id": "\(id)"])
    }

    /// Forgets the stored token.
    public func logOut() async throws {
        try await forget()
    }

    /// The logged-in member, fetched with the stored token.
    ///
    /// - Throws: `SessionError.notLoggedIn` without a token, the API's
    ///   errors otherwise.
    public func currentMember() async throws -> User {
        try await fetchCurrentMember()
    }
}

/// Misuse of the ``AuthService``.
public enum AuthServiceError: Error, Equatable, Sendable {
    /// A login was already running; this one was not sent.
    case loginInProgress
}
