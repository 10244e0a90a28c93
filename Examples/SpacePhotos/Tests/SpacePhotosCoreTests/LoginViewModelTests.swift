import BaselineTesting
import SpacePhotosCore
import Testing

/// An auth service whose logins are controlled by the test.
struct AuthServiceDouble: AuthServiceProtocol {
    let logIn = ControllableCall<Credentials, Void>()

    func logIn(for id: User.ID, with password: String) async throws {
        try await logIn(Credentials(id: id, password: password))
    }
}

/// An auth service that answers every login at once with `result`.
struct ImmediateAuthService: AuthServiceProtocol {
    var result: Result<Void, any Error>

    func logIn(for id: User.ID, with password: String) async throws {
        try result.get()
    }
}

/// A model whose logs go to a recorder, not the test output, with both
/// fields filled (the button is disabled while one is empty).
@MainActor
func makeModel(_ authService: any AuthServiceProtocol, logs: LogRecorder = LogRecorder()) -> LoginViewModel {
    let model = LoginViewModel(authService: authService, logger: logs.logger())
    model.id = "astro"
    model.password = "secret"
    return model
}

@MainActor
@Suite("LoginViewModel", .timeLimit(.minutes(1)))
struct LoginViewModelTests {
    struct SomethingElse: Error {}

    // The seed's tests: one message per kind of failure.

    @Test func wrongCredentialsShowTheCredentialsMessage() async {
        let model = makeModel(ImmediateAuthService(result: .failure(LoginError.invalidCredentials)))
        await model.loginButtonPressed()
        #expect(model.loginErrorMessage == .invalidCredentials)
    }

    @Test func aServerErrorShowsTheServerMessage() async {
        let model = makeModel(ImmediateAuthService(result: .failure(LoginError.server(status: 500))))
        await model.loginButtonPressed()
        #expect(model.loginErrorMessage == .server)
    }

    @Test func rateLimitingShowsWhenToTryAgain() async {
        let model = makeModel(ImmediateAuthService(result: .failure(LoginError.rateLimited(retryAfterSeconds: 30))))
        await model.loginButtonPressed()
        #expect(model.loginErrorMessage == .rateLimited(retryAfterSeconds: 30))
        #expect(model.loginErrorMessage?.text.contains("30 seconds") == true)
    }

    @Test func anUnreachableServerShowsTheNetworkMessage() async {
        let model = makeModel(ImmediateAuthService(result: .failure(LoginError.networkUnreachable(reason: "refused"))))
        await model.loginButtonPressed()
        #expect(model.loginErrorMessage == .networkUnreachable)
    }

    @Test func anUnexpectedErrorShowsTheServerMessage() async {
        let model = makeModel(ImmediateAuthService(result: .failure(SomethingElse())))
        await model.loginButtonPressed()
        #expect(model.loginErrorMessage == .server)
    }

    // The seed's in-flight test, without Task.yield loops.

    @Test func failuresAreLoggedWithoutThePassword() async {
        let logs = LogRecorder()
        let model = makeModel(ImmediateAuthService(result: .failure(LoginError.invalidCredentials)), logs: logs)
        model.id = "astro"
        model.password = "hunter2"
        await model.loginButtonPressed()
        #expect(logs.entries.contains { $0.level == .warning && $0.message == "Login failed" })
        #expect(!logs.text.contains("hunter2"))
    }

    @Test func theButtonIsEnabledOnlyWhenBothFieldsAreFilled() async {
        let auth = AuthServiceDouble()
        let model = LoginViewModel(authService: auth, logger: LogRecorder().logger())
        #expect(!model.isLoginButtonEnabled)
        model.id = "  "
        model.password = "secret"
        #expect(!model.isLoginButtonEnabled)  // an ID of spaces is no ID
        model.id = "astro"
        model.password = ""
        #expect(!model.isLoginButtonEnabled)
        await model.loginButtonPressed()  // disabled: nothing is sent
        #expect(auth.logIn.callCount == 0)
        model.password = " "
        #expect(model.isLoginButtonEnabled)  // a password may be spaces
    }

    @Test func theIDIsSentWithoutSurroundingSpaces() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        model.id = " astro "
        let pressed = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        #expect(call.arguments.id == User.ID(rawValue: "astro"))
        #expect(model.isLoggingIn)
        call.resume()
        await pressed.value
        #expect(!model.isLoggingIn)
    }

    @Test func theButtonIsDisabledWhileLoggingInAndEnabledAfter() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        model.id = "astro"
        model.password = "secret"
        #expect(model.isLoginButtonEnabled)

        let pressed = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        #expect(call.arguments == Credentials(id: User.ID(rawValue: "astro"), password: "secret"))
        #expect(model.isLoginButtonEnabled == false)

        call.resume()
        await pressed.value
        #expect(model.isLoginButtonEnabled)
        #expect(model.loginErrorMessage == nil)
    }

    @Test func theButtonIsEnabledAgainAfterAFailure() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        let pressed = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        #expect(model.isLoginButtonEnabled == false)
        call.resume(throwing: LoginError.invalidCredentials)
        await pressed.value
        #expect(model.isLoginButtonEnabled)
        #expect(model.loginErrorMessage == .invalidCredentials)
    }

    @Test func theButtonIsEnabledAgainAfterCancellationWithNoMessage() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        let pressed = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        pressed.cancel()
        await pressed.value
        #expect(call.isCancelled)
        #expect(model.isLoginButtonEnabled)
        #expect(model.loginErrorMessage == nil)
    }

    @Test func pressingAgainWhileInFlightDoesNotLogInTwice() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        let first = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        await model.loginButtonPressed()  // returns at once: a login is running
        #expect(auth.logIn.callCount == 1)
        call.resume()
        await first.value
    }

    @Test func aSuccessfulLoginAsksToBeDismissed() async throws {
        let model = makeModel(ImmediateAuthService(result: .success(())))
        await model.loginButtonPressed()
        var dismissals = model.dismissals.makeAsyncIterator()
        #expect(await dismissals.next() != nil)
    }

    @Test func aNewAttemptClearsTheOldMessage() async throws {
        let auth = AuthServiceDouble()
        let model = makeModel(auth)
        let firstPress = Task { await model.loginButtonPressed() }
        try await auth.logIn.nextCall().resume(throwing: LoginError.invalidCredentials)
        await firstPress.value
        #expect(model.loginErrorMessage == .invalidCredentials)

        let secondPress = Task { await model.loginButtonPressed() }
        let call = try await auth.logIn.nextCall()
        #expect(model.loginErrorMessage == nil)
        call.resume()
        await secondPress.value
    }
}
