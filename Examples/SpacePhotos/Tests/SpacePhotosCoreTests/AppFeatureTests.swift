import BaselineConcurrency
import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

/// The app's navigation, exhaustively: every screen change, every
/// presentation and dismissal of the login screen, every session call.
@MainActor
@Suite("AppFeature", .timeLimit(.minutes(1)))
struct AppFeatureTests {
    let member = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 0))
    let logOuts = LockedValue(0)

    /// A store whose stored session is checked with `restore`; logging out
    /// is counted. Logging in is not overridden: a test that logs in says so.
    func makeStore(
        _ state: AppFeature.State = AppFeature.State(),
        restore: @escaping @Sendable () async throws -> User? = unimplemented("restore"),
        logIn: (@Sendable (User.ID, String) async throws -> Void)? = nil,
        logOut: (@Sendable () async throws -> Void)? = nil
    ) -> TestStore<AppFeature.State, AppFeature.Action> {
        let logOuts = logOuts
        return TestStore(initialState: state) {
            AppFeature(logger: LogRecorder().logger())
        } withDependencies: {
            $0.session.restore = restore
            if let logIn { $0.session.logIn = logIn }
            $0.session.logOut = logOut ?? { logOuts.withLock { $0 += 1 } }
        }
    }

    @Test func withoutAStoredSessionTheLoginScreenIsPresented() async {
        let store = makeStore(restore: { nil })
        await store.send(.start)
        await store.receive(.sessionChecked(.absent)) {
            $0.screen = .login
            $0.login = LoginFeature.State()
        }
        await store.finish()
        #expect(logOuts.current == 0)
    }

    @Test func aStoredSessionTheServerAcceptsGoesStraightIn() async {
        let store = makeStore(restore: { [member] in member })
        await store.send(.start)
        await store.receive(.sessionChecked(.valid)) {
            $0.screen = .main
            $0.sessionNumber = 1
        }
        await store.finish()
    }

    @Test func aSessionTheServerRefusesIsForgottenAndTheLoginScreenSaysWhy() async {
        let refused = HTTPClientError.authenticationFailed(.refreshFailed(underlying: LoginError.invalidCredentials))
        let store = makeStore(restore: { throw refused })
        await store.send(.start)
        await store.receive(.sessionChecked(.ended)) {
            $0.screen = .login
            $0.login = LoginFeature.State(notice: AppFeature.sessionEndedNotice)
        }
        await store.finish()
        #expect(logOuts.current == 1)
    }

    @Test func anUnreachableServerCanBeRetriedAndKeepsTheSession() async {
        let answers = LockedValue<[Result<User?, any Error>]>([
            .failure(HTTPClientError.transport(underlying: URLError(.cannotConnectToHost))),
            .success(member),
        ])
        let store = makeStore(restore: { try answers.withLock { $0.removeFirst() }.get() })
        await store.send(.start)
        await store.receive(
            .sessionChecked(
                .unavailable(
                    "The server cannot be reached (\(ErrorMessage.line(for: URLError(.cannotConnectToHost)))). Check that it runs, then retry."
                )
            )
        ) {
            $0.screen = .unavailable(
                "The server cannot be reached (\(ErrorMessage.line(for: URLError(.cannotConnectToHost)))). Check that it runs, then retry."
            )
        }
        await store.send(.start) { $0.screen = .launching }
        await store.receive(.sessionChecked(.valid)) {
            $0.screen = .main
            $0.sessionNumber = 1
        }
        await store.finish()
        #expect(logOuts.current == 0, "an unreachable server is no reason to forget the session")
    }

    @Test func aRefreshThatCannotReachTheServerIsUnreachableToo() async {
        let refresh = HTTPClientError.authenticationFailed(
            .refreshFailed(underlying: LoginError.networkUnreachable(reason: "refused"))
        )
        let store = makeStore(restore: { throw refresh })
        let message = "The server cannot be reached (refused). Check that it runs, then retry."
        await store.send(.start)
        await store.receive(.sessionChecked(.unavailable(message))) { $0.screen = .unavailable(message) }
        await store.finish()
    }

    @Test func aServerErrorAtLaunchKeepsTheSession() async throws {
        let failure = HTTPClientError.unacceptableStatus(HTTPResponse(status: .serviceUnavailable), body: Data())
        let store = makeStore(restore: { throw failure })
        store.exhaustivity = .off
        await store.send(.start)
        await store.receive(
            .sessionChecked(
                .unavailable(
                    "The server could not check your session (\(ErrorMessage.line(for: failure))). Retry in a moment."
                )
            )
        )
        guard case .unavailable = store.state.screen else {
            Issue.record("expected the unavailable screen, got \(store.state.screen)")
            return
        }
        #expect(logOuts.current == 0)
    }

    @Test func theLoginScreenDismissesItselfOnSuccessAndTheMainScreenShows() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let store = makeStore(
            AppFeature.State(screen: .login, login: LoginFeature.State(), tab: .profile),
            logIn: { try await logIn(Credentials(id: $0, password: $1)) }
        )
        await store.send(.login(.presented(.binding(.set(\.id, "astro"))))) { $0.login?.id = "astro" }
        await store.send(.login(.presented(.binding(.set(\.password, "stardust-42"))))) {
            $0.login?.password = "stardust-42"
        }
        await store.send(.login(.presented(.loginButtonTapped))) { $0.login?.isLoggingIn = true }
        try await logIn.nextCall().resume()
        await store.receive(.login(.dismiss)) {
            $0.login = nil
            $0.screen = .main
            $0.tab = .photos
            $0.sessionNumber = 1
        }
        await store.finish()
    }

    @Test func aFailedLoginStaysOnTheLoginScreen() async throws {
        let store = makeStore(
            AppFeature.State(screen: .login, login: LoginFeature.State(id: "astro", password: "wrong")),
            logIn: { _, _ in throw LoginError.invalidCredentials }
        )
        await store.send(.login(.presented(.loginButtonTapped))) { $0.login?.isLoggingIn = true }
        await store.receive(.login(.presented(.loginFailed(.invalidCredentials)))) {
            $0.login?.isLoggingIn = false
            $0.login?.errorMessage = .invalidCredentials
        }
        await store.finish()
    }

    @Test func aLoginInFlightEndsWithTheLoginScreen() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let store = makeStore(
            AppFeature.State(screen: .login, login: LoginFeature.State(id: "astro", password: "secret")),
            restore: { nil },
            logIn: { try await logIn(Credentials(id: $0, password: $1)) }
        )
        await store.send(.login(.presented(.loginButtonTapped))) { $0.login?.isLoggingIn = true }
        let call = try await logIn.nextCall()
        // A retry of the launch takes the login screen down with its request.
        await store.send(.start) {
            $0.screen = .launching
            $0.login = nil
        }
        await store.receive(.sessionChecked(.absent)) {
            $0.screen = .login
            $0.login = LoginFeature.State()
        }
        await store.finish()
        #expect(call.isCancelled)
    }

    @Test func loggingOutPresentsAFreshLoginScreen() async {
        let store = makeStore(AppFeature.State(screen: .main, tab: .profile, sessionNumber: 1))
        await store.send(.logOutButtonTapped) { $0.isLoggingOut = true }
        await store.send(.logOutButtonTapped)  // a second tap while it runs does nothing
        await store.receive(.logOutFinished(errorMessage: nil)) {
            $0.isLoggingOut = false
            $0.screen = .login
            $0.login = LoginFeature.State()
        }
        await store.finish()
        #expect(logOuts.current == 1)
    }

    @Test func aFailedLogOutSaysWhyAndStays() async {
        struct DiskFull: Error {}
        let store = makeStore(AppFeature.State(screen: .main, sessionNumber: 1), logOut: { throw DiskFull() })
        await store.send(.logOutButtonTapped) { $0.isLoggingOut = true }
        let message = ErrorMessage.line("Logging out failed", DiskFull())
        await store.receive(.logOutFinished(errorMessage: message)) {
            $0.isLoggingOut = false
            $0.logOutErrorMessage = message
        }
        await store.finish()
    }

    @Test func aDismissalOfNoLoginScreenChangesNothing() async {
        let store = makeStore(AppFeature.State(screen: .main, sessionNumber: 1))
        await store.send(.login(.dismiss))
        await store.send(.login(.presented(.loginButtonTapped)))
    }

    @Test func theTabIsBoundAndQuittingIsConfirmedOrCancelled() async {
        let store = makeStore(AppFeature.State(screen: .main, sessionNumber: 1))
        await store.send(.binding(.set(\.tab, .todos))) { $0.tab = .todos }
        let saving: Set<Int> = [1]
        await store.send(.quitRequested(during: saving)) { $0.quitRequest = saving }
        await store.send(.quitCancelled) { $0.quitRequest = nil }
    }
}
