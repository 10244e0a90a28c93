import BaselineHTTP
import BaselineStore

// `nonisolated` for an app target whose default isolation is the main actor:
// a dependency: effects read and call it off the main actor.

/// The session as the app's features see it: what the stored one is worth,
/// a login, a log out, the signed-in member. A dependency
/// (`@Dependency(\.session)`), so a test overrides only the endpoints its
/// feature should touch.
///
/// ```swift
/// let store = TestStore(initialState: LoginFeature.State()) {
///     LoginFeature()
/// } withDependencies: {
///     $0.session.logIn = { _, _ in }
/// }
/// ```
///
/// It answers in the app's terms: ``check`` says what it found
/// (``SessionCheck``), so no feature reads the HTTP client's errors. The
/// live client (``live(tokens:authAPI:memberAPI:)``) is one hop from the
/// token files: ``SessionTokens`` keeps them.
public nonisolated struct SessionClient: Sendable {
    /// Checks the stored session with the server (an expired ID token is
    /// refreshed on the way); one the server refuses is forgotten.
    public var check: @Sendable () async -> SessionCheck
    /// Logs in, storing the session.
    ///
    /// - Throws: ``LoginError``, or `CancellationError`.
    public var logIn: @Sendable (_ id: User.ID, _ password: String) async throws -> Void
    /// Forgets the stored session.
    public var logOut: @Sendable () async throws -> Void
    /// The signed-in member, for the profile.
    public var member: @Sendable () async throws -> User

    /// A client with the given endpoints.
    public init(
        check: @escaping @Sendable () async -> SessionCheck,
        logIn: @escaping @Sendable (_ id: User.ID, _ password: String) async throws -> Void,
        logOut: @escaping @Sendable () async throws -> Void,
        member: @escaping @Sendable () async throws -> User
    ) {
        self.check = check
        self.logIn = logIn
        self.logOut = logOut
        self.member = member
    }
}

nonisolated extension SessionClient {
    /// The client on the server: logins go through `authAPI` into `tokens`,
    /// member requests through `memberAPI`, whose client sends the tokens
    /// with `BearerAuthentication(provider: tokens)` (a 401 refreshes once).
    public static func live(tokens: SessionTokens, authAPI: AuthAPI, memberAPI: MemberAPI) -> SessionClient {
        SessionClient(
            check: {
                await SessionCheck.checking {
                    guard try await tokens.accessToken() != nil else { return nil }
                    return try await memberAPI.me()
                } forget: {
                    try await tokens.clear()
                }
            },
            logIn: { id, password in try await tokens.save(try await authAPI.grant(for: id, with: password)) },
            logOut: { try await tokens.clear() },
            member: { try await memberAPI.me() }
        )
    }
}

/// What checking the stored session found.
public enum SessionCheck: Equatable, Sendable {
    /// The server accepted it: this member is signed in.
    case signedIn(User)
    /// None is stored.
    case signedOut
    /// The server refused it (expired and not refreshable, or revoked); it
    /// has been forgotten.
    case ended
    /// The server could not be reached; the reason says why. The session is kept.
    case offline(reason: String)
    /// The server could not check it; the message says why. The session is kept.
    case failed(String)

    /// Runs `restore` (the stored session's member, `nil` when none is
    /// stored) and says what it found; a session the server refuses is
    /// forgotten with `forget`.
    public static func checking(
        restore: @Sendable () async throws -> User?,
        forget: @Sendable () async throws -> Void
    ) async -> SessionCheck {
        do {
            return try await restore().map(SessionCheck.signedIn) ?? .signedOut
        } catch  where isRefusal(error) {
            try? await forget()
            return .ended
        } catch  where isUnreachable(error) {
            return .offline(reason: reason(error))
        } catch {
            return .failed(ErrorMessage.line(for: error))
        }
    }

    /// Whether `error` is the server refusing the session: a 401 or 403, a
    /// refresh it rejected, or no session stored.
    static func isRefusal(_ error: any Error) -> Bool {
        switch error {
        case let HTTPClientError.unacceptableStatus(head, _):
            return head.status == .unauthorized || head.status == .forbidden
        case let HTTPClientError.authenticationFailed(.refreshFailed(underlying)):
            return isRefusal(underlying)
        case LoginError.invalidCredentials, SessionError.notLoggedIn:
            return true
        default:
            return false
        }
    }

    /// Whether `error` says the server could not be reached, as opposed to
    /// the server refusing the session.
    static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .transport, .timedOut: return true
            case let .authenticationFailed(.refreshFailed(underlying)),
                let .authenticationFailed(.tokenUnavailable(underlying)):
                return isUnreachable(underlying)
            default: return false
            }
        case let error as LoginError:
            if case .networkUnreachable = error { return true }
            return false
        default:
            return false
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let HTTPClientError.transport(underlying): ErrorMessage.line(for: underlying)
        case let LoginError.networkUnreachable(reason): reason
        case let HTTPClientError.authenticationFailed(.refreshFailed(underlying)): reason(underlying)
        default: ErrorMessage.line(for: error)
        }
    }
}

/// Why a session call found no session.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No token is stored, or the session ended while the call ran.
    case notLoggedIn

    /// One line for the user.
    public var description: String {
        switch self {
        case .notLoggedIn: "Not logged in."
        }
    }
}

nonisolated extension SessionClient: DependencyKey {
    /// Reports each call: the app must set the client (it needs a server).
    public static let liveValue = SessionClient(
        check: unimplemented("SessionClient.check (set it with withDependencies)", placeholder: .signedOut),
        logIn: unimplemented("SessionClient.logIn (set it with withDependencies)"),
        logOut: unimplemented("SessionClient.logOut (set it with withDependencies)"),
        member: unimplemented("SessionClient.member (set it with withDependencies)")
    )
    /// Fails the test that calls an endpoint it did not override.
    public static let testValue = SessionClient(
        check: unimplemented("SessionClient.check", placeholder: .signedOut),
        logIn: unimplemented("SessionClient.logIn"),
        logOut: unimplemented("SessionClient.logOut"),
        member: unimplemented("SessionClient.member")
    )
}

nonisolated extension DependencyValues {
    /// The session: check, log in, log out, the member.
    public var session: SessionClient {
        get { self[SessionClient.self] }
        set { self[SessionClient.self] = newValue }
    }
}
