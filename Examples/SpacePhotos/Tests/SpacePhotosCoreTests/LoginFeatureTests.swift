import BaselineConcurrency
import BaselineStore
import BaselineTesting
import SpacePhotosCore
import Testing

/// An auth service whose logins are controlled by the test.
struct AuthServiceDouble: Sendable {
    let logIn = ControllableCall<Credentials, Void>()

    func logIn(for id: User.ID, with password: String) async throws {
        try await logIn(Credentials(id: id, password: password))
    }
}

/// A login form with both fields filled (the button is disabled while one is empty).
let filledForm = LoginFeature.State(id: "astro", password: "secret")

@MainActor
@Suite("LoginFeature", .timeLimit(.minutes(2)))
struct LoginFeatureTests {
    struct SomethingElse: Error {}

    /// A test store whose logins end with `result` at once, dismissals counted
    /// in `dismissals`, and logs kept in `logs`.
    func makeStore(
        _ state: LoginFeature.State = filledForm,
        result: Result<Void, any Error>,
        dismissals: LockedValue<Int> = LockedValue(0),
        logs: LogRecorder = LogRecorder()
    ) -> TestStore<LoginFeature.State, LoginFeature.Action> {
        TestStore(initialState: state) {
            LoginFeature(logger: logs.logger())
        } withDependencies: {
            $0.session.logIn = { _, _ in try result.get() }
            $0.dismiss = DismissEffect { dismissals.withLock { $0 += 1 } }
        }
    }

    /// A test store whose logins the test answers through `logIn`.
    func makeStore(
        _ state: LoginFeature.State = filledForm,
        logIn: ControllableCall<Credentials, Void>,
        dismissals: LockedValue<Int> = LockedValue(0)
    ) -> TestStore<LoginFeature.State, LoginFeature.Action> {
        TestStore(initialState: state) {
            LoginFeature(logger: LogRecorder().logger())
        } withDependencies: {
            $0.session.logIn = { id, password in try await logIn(Credentials(id: id, password: password)) }
            $0.dismiss = DismissEffect { dismissals.withLock { $0 += 1 } }
        }
    }

    // One message per kind of failure.

    @Test(arguments: [
        (LoginError.invalidCredentials as any Error, LoginErrorMessage.invalidCredentials),
        (LoginError.server(status: 500), .server),
        (LoginError.rateLimited(retryAfterSeconds: 30), .rateLimited(retryAfterSeconds: 30)),
        (LoginError.networkUnreachable(reason: "refused"), .networkUnreachable),
        (SomethingElse(), .server),
    ])
    func eachFailureShowsItsMessage(error: any Error, message: LoginErrorMessage) async {
        let store = makeStore(result: .failure(error))
        await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
        await store.receive(.loginFailed(message)) {
            $0.isLoggingIn = false
            $0.errorMessage = message
        }
        await store.finish()
    }

    @Test func theRateLimitMessageSaysWhenToTryAgain() {
        #expect(LoginErrorMessage.rateLimited(retryAfterSeconds: 30).text.contains("30 seconds"))
    }

    @Test func failuresAreLoggedWithoutThePassword() async {
        let logs = LogRecorder()
        let store = makeStore(
            LoginFeature.State(id: "astro", password: "hunter2"),
            result: .failure(LoginError.invalidCredentials),
            logs: logs
        )
        await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
        await store.receive(.loginFailed(.invalidCredentials)) {
            $0.isLoggingIn = false
            $0.errorMessage = .invalidCredentials
        }
        await store.finish()
        #expect(logs.entries.contains { $0.level == .warning && $0.message == "Login failed" })
        #expect(!logs.text.contains("hunter2"))
    }

    // The form: bound fields, no action per field.

    @Test func theFieldsAreBoundAndTheButtonNeedsBothFilled() async {
        // No login endpoint: pressing a disabled button must not call one.
        let store = TestStore(initialState: LoginFeature.State()) { LoginFeature() }
        #expect(!store.state.isLoginButtonEnabled)
        await store.send(.binding(.set(\.id, "  "))) { $0.id = "  " }
        await store.send(.binding(.set(\.password, "secret"))) { $0.password = "secret" }
        #expect(!store.state.isLoginButtonEnabled, "an ID of spaces is no ID")
        await store.send(.loginButtonTapped)
        await store.send(.binding(.set(\.id, "astro"))) { $0.id = "astro" }
        await store.send(.binding(.set(\.password, ""))) { $0.password = "" }
        #expect(!store.state.isLoginButtonEnabled)
        await store.send(.loginButtonTapped)
        await store.send(.binding(.set(\.password, " "))) { $0.password = " " }
        #expect(store.state.isLoginButtonEnabled, "a password may be spaces")
    }

    @Test func focusIsBoundAndANewFormStartsOnTheID() async {
        let store = TestStore(initialState: LoginFeature.State()) { LoginFeature() }
        #expect(store.state.focus == .id)
        await store.send(.binding(.set(\.focus, .password))) { $0.focus = .password }
    }

    @Test func theFieldsHoldAtMostTheirLimits() async {
        let store = TestStore(initialState: LoginFeature.State()) { LoginFeature() }
        let longID = String(repeating: "a", count: LoginFeature.State.maximumIDLength + 5)
        await store.send(.binding(.set(\.id, longID))) {
            $0.id = String(repeating: "a", count: LoginFeature.State.maximumIDLength)
        }
        let longPassword = String(repeating: "p", count: LoginFeature.State.maximumPasswordLength + 1)
        await store.send(.binding(.set(\.password, longPassword))) {
            $0.password = String(repeating: "p", count: LoginFeature.State.maximumPasswordLength)
        }
    }

    @Test func submittingTheIDMovesToAnEmptyPasswordElseLogsIn() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let store = makeStore(LoginFeature.State(id: "astro"), logIn: logIn)
        await store.send(.submitted) { $0.focus = .password }
        await store.send(.binding(.set(\.password, "secret"))) { $0.password = "secret" }
        await store.send(.submitted) { $0.isLoggingIn = true }
        try await logIn.nextCall().resume()
        await store.finish()
    }

    @Test func aCancelledLoginLeavesTheFormEditableWithNoMessage() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let dismissals = LockedValue(0)
        let store = makeStore(logIn: logIn, dismissals: dismissals)
        await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
        let call = try await logIn.nextCall()
        await store.send(.cancelLoginTapped) { $0.isLoggingIn = false }
        await store.finish()
        #expect(call.isCancelled)
        #expect(dismissals.current == 0)
        #expect(store.state.isLoginButtonEnabled)
        await store.send(.cancelLoginTapped)  // nothing in flight: nothing to do
    }

    // The attempt in flight, without Task.yield loops.

    @Test func theIDIsSentTrimmedAndTheButtonIsDisabledInFlight() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let dismissals = LockedValue(0)
        let store = makeStore(
            LoginFeature.State(id: " astro ", password: " secret"),
            logIn: logIn,
            dismissals: dismissals
        )
        await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
        let call = try await logIn.nextCall()
        #expect(call.arguments == Credentials(id: User.ID(rawValue: "astro"), password: " secret"))
        #expect(!store.state.isLoginButtonEnabled)
        #expect(dismissals.current == 0)

        // Pressing again while in flight starts nothing.
        await store.send(.loginButtonTapped)
        #expect(logIn.callCount == 1)

        call.resume()
        await store.finish()
        #expect(dismissals.current == 1, "a successful login dismisses the screen")
    }

    @Test func aFailureEnablesTheButtonAgainAndANewAttemptClearsTheMessage() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let store = makeStore(logIn: logIn)
        await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
        try await logIn.nextCall().resume(throwing: LoginError.invalidCredentials)
        await store.receive(.loginFailed(.invalidCredentials)) {
            $0.isLoggingIn = false
            $0.errorMessage = .invalidCredentials
        }
        #expect(store.state.isLoginButtonEnabled)

        await store.send(.loginButtonTapped) {
            $0.isLoggingIn = true
            $0.errorMessage = nil
        }
        try await logIn.nextCall().resume()
        await store.finish()
    }
}
