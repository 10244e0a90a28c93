import BaselineStore

/// The session as the app's features see it: the stored one checked with
/// the server, a login, a log out. A dependency (`@Dependency(\.session)`),
/// so a test overrides only the endpoints its feature should touch.
///
/// ```swift
/// let store = TestStore(initialState: LoginFeature.State()) {
///     LoginFeature()
/// } withDependencies: {
///     $0.session.logIn = { _, _ in }
/// }
/// ```
///
/// It has no live value of its own (it needs a server): the app sets it from
/// its ``AppDependencies`` when it makes its store (``init(_:)``).
public struct SessionClient: Sendable {
    /// The member of the stored session, checked with the server; `nil` when
    /// none is stored.
    public var restore: @Sendable () async throws -> User?
    /// Logs in, storing the session.
    public var logIn: @Sendable (_ id: User.ID, _ password: String) async throws -> Void
    /// Forgets the stored session.
    public var logOut: @Sendable () async throws -> Void

    /// A client with the given endpoints.
    public init(
        restore: @escaping @Sendable () async throws -> User?,
        logIn: @escaping @Sendable (_ id: User.ID, _ password: String) async throws -> Void,
        logOut: @escaping @Sendable () async throws -> Void
    ) {
        self.restore = restore
        self.logIn = logIn
        self.logOut = logOut
    }

    /// The client on the app's services.
    public init(_ dependencies: AppDependencies) {
        let auth = dependencies.auth
        self.init(
            restore: dependencies.restoreSession,
            logIn: { id, password in try await auth.logIn(for: id, with: password) },
            logOut: dependencies.logOut
        )
    }
}

extension SessionClient: DependencyKey {
    /// Reports each call: the app must set the client (it needs a server).
    public static let liveValue = SessionClient(
        restore: unimplemented("SessionClient.restore (set it with withDependencies)"),
        logIn: unimplemented("SessionClient.logIn (set it with withDependencies)"),
        logOut: unimplemented("SessionClient.logOut (set it with withDependencies)")
    )
    /// Fails the test that calls an endpoint it did not override.
    public static let testValue = SessionClient(
        restore: unimplemented("SessionClient.restore"),
        logIn: unimplemented("SessionClient.logIn"),
        logOut: unimplemented("SessionClient.logOut")
    )
}

extension DependencyValues {
    /// The session: restore, log in, log out.
    public var session: SessionClient {
        get { self[SessionClient.self] }
        set { self[SessionClient.self] = newValue }
    }
}
