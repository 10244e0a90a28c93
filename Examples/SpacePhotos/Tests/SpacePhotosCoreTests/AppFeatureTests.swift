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
@Suite("AppFeature", .timeLimit(.minutes(2)))
struct AppFeatureTests {
    let member = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 0))
    let logOuts = LockedValue(0)

    /// A store whose stored session is checked with `restore` (what the
    /// session client finds in it: ``SessionCheck/checking(restore:forget:)``);
    /// logging out is counted. Logging in is not overridden: a test that
    /// logs in says so.
    func makeStore(
        _ state: AppFeature.State = AppFeature.State(),
        restore: @escaping @Sendable () async throws -> User? = unimplemented("restore"),
        logIn: (@Sendable (User.ID, String) async throws -> Void)? = nil,
        logOut: (@Sendable () async throws -> Void)? = nil
    ) async throws -> TestStore<AppFeature.State, AppFeature.Action> {
        let logOuts = logOuts
        let logOut = logOut ?? { logOuts.withLock { $0 += 1 } }
        let dependencies = try await AppFixture().dependencies()
        return TestStore(initialState: state) {
            AppFeature(dependencies: dependencies, logger: LogRecorder().logger())
        } withDependencies: {
            $0.session.check = { await SessionCheck.checking(restore: restore, forget: logOut) }
            if let logIn { $0.session.logIn = logIn }
            $0.session.logOut = logOut
        }
    }

    @Test func withoutAStoredSessionTheLoginScreenIsPresented() async throws {
        let store = try await makeStore(restore: { nil })
        await store.send(.start)
        await store.receive(.sessionChecked(.signedOut)) {
            $0.screen = .login
            $0.login = LoginFeature.State()
        }
        await store.finish()
        #expect(logOuts.current == 0)
    }

    @Test func aStoredSessionTheServerAcceptsGoesStraightIn() async throws {
        let store = try await makeStore(restore: { [member] in member })
        await store.send(.start)
        await store.receive(.sessionChecked(.signedIn(member))) {
            $0.screen = .main
            $0.member = member.id
            $0.sessionNumber = 1
            $0.profile = ProfileFeature.State(id: 1)
        }
        await store.receive(.todoListOpened(member.id)) { $0.openTodoList = member.id }
        await store.finish()
    }

    @Test func aSessionTheServerRefusesIsForgottenAndTheLoginScreenSaysWhy() async throws {
        let refused = HTTPClientError.authenticationFailed(.refreshFailed(underlying: LoginError.invalidCredentials))
        let store = try await makeStore(restore: { throw refused })
        await store.send(.start)
        await store.receive(.sessionChecked(.ended)) {
            $0.screen = .login
            $0.login = LoginFeature.State(notice: AppFeature.sessionEndedNotice)
        }
        await store.finish()
        #expect(logOuts.current == 1)
    }

    @Test func anUnreachableServerCanBeRetriedAndKeepsTheSession() async throws {
        let answers = LockedValue<[Result<User?, any Error>]>([
            .failure(HTTPClientError.transport(underlying: URLError(.cannotConnectToHost))),
            .success(member),
        ])
        let store = try await makeStore(restore: { try answers.withLock { $0.removeFirst() }.get() })
        await store.send(.start)
        await store.receive(.sessionChecked(.offline(reason: ErrorMessage.line(for: URLError(.cannotConnectToHost))))) {
            $0.screen = .unavailable(
                "The server cannot be reached (\(ErrorMessage.line(for: URLError(.cannotConnectToHost)))). Check that it runs, then retry."
            )
        }
        await store.send(.start) { $0.screen = .launching }
        await store.receive(.sessionChecked(.signedIn(member))) {
            $0.screen = .main
            $0.member = member.id
            $0.sessionNumber = 1
            $0.profile = ProfileFeature.State(id: 1)
        }
        await store.receive(.todoListOpened(member.id)) { $0.openTodoList = member.id }
        await store.finish()
        #expect(logOuts.current == 0, "an unreachable server is no reason to forget the session")
    }

    @Test func aRefreshThatCannotReachTheServerIsUnreachableToo() async throws {
        let refresh = HTTPClientError.authenticationFailed(
            .refreshFailed(underlying: LoginError.networkUnreachable(reason: "refused"))
        )
        let store = try await makeStore(restore: { throw refresh })
        let message = "The server cannot be reached (refused). Check that it runs, then retry."
        await store.send(.start)
        await store.receive(.sessionChecked(.offline(reason: "refused"))) { $0.screen = .unavailable(message) }
        await store.finish()
    }

    @Test func aServerErrorAtLaunchKeepsTheSession() async throws {
        let failure = HTTPClientError.unacceptableStatus(HTTPResponse(status: .serviceUnavailable), body: Data())
        let store = try await makeStore(restore: { throw failure })
        store.exhaustivity = .off
        await store.send(.start)
        await store.receive(.sessionChecked(.failed(ErrorMessage.line(for: failure))))
        guard
            case .unavailable(
                "The server could not check your session (\(ErrorMessage.line(for: failure))). Retry in a moment."
            ) =
                store.state.screen
        else {
            Issue.record("expected the unavailable screen, got \(store.state.screen)")
            return
        }
        #expect(logOuts.current == 0)
    }

    @Test func theLoginScreenDismissesItselfOnSuccessAndTheMainScreenShows() async throws {
        let logIn = ControllableCall<Credentials, Void>()
        let store = try await makeStore(
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
            $0.member = User.ID(rawValue: "astro")  // whose to-dos sync
            $0.sessionNumber = 1  // the tab stays: it is the one kept from the last launch
            $0.profile = ProfileFeature.State(id: 1)
        }
        await store.receive(.todoListOpened(User.ID(rawValue: "astro"))) {
            $0.openTodoList = User.ID(rawValue: "astro")
        }
        await store.finish()
    }

    @Test func aFailedLoginStaysOnTheLoginScreen() async throws {
        let store = try await makeStore(
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
        let store = try await makeStore(
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
        await store.receive(.sessionChecked(.signedOut)) {
            $0.screen = .login
            $0.login = LoginFeature.State()
        }
        await store.finish()
        #expect(call.isCancelled)
    }

    @Test func loggingOutPresentsAFreshLoginScreen() async throws {
        var favourites = Favourites.State()
        favourites.isLive = true
        favourites.counts = ["1995-06-16": 2]
        favourites.mine = ["1995-06-16"]
        let store = try await makeStore(
            AppFeature.State(
                screen: .main,
                tab: .profile,
                todos: TodoList.State(
                    todos: Fetched([Todo(id: 1, text: "Astro's", date: Date(timeIntervalSince1970: 0))]),
                    draft: "half-typed"
                ),
                favourites: favourites,
                profile: ProfileFeature.State(id: 1),
                member: User.ID(rawValue: "astro"),
                openTodoList: User.ID(rawValue: "astro"),
                sessionNumber: 1
            )
        )
        await store.send(.logOutButtonTapped) { $0.isLoggingOut = true }
        await store.send(.logOutButtonTapped)  // a second tap while it runs does nothing
        await store.receive(.logOutFinished(errorMessage: nil)) {
            $0.isLoggingOut = false
            $0.screen = .login
            $0.login = LoginFeature.State()
            $0.profile = nil
            $0.member = nil
            $0.openTodoList = nil
            // The next member's favourites and to-dos are not this one's.
            $0.favourites = Favourites.State()
            $0.todos = TodoList.State()
        }
        await store.receive(.favourites(.stop))
        await store.receive(.todos(.sync(.stop)))
        await store.receive(.todos(.todos(.stop)))
        await store.finish()
        #expect(logOuts.current == 1)
    }

    @Test func aFailedLogOutSaysWhyAndStays() async throws {
        struct DiskFull: Error {}
        let store = try await makeStore(AppFeature.State(screen: .main, sessionNumber: 1), logOut: { throw DiskFull() })
        await store.send(.logOutButtonTapped) { $0.isLoggingOut = true }
        let message = ErrorMessage.line("Logging out failed", DiskFull())
        await store.receive(.logOutFinished(errorMessage: message)) {
            $0.isLoggingOut = false
            $0.logOutErrorMessage = message
        }
        await store.finish()
    }

    @Test func aDismissalOfNoLoginScreenChangesNothing() async throws {
        let store = try await makeStore(AppFeature.State(screen: .main, sessionNumber: 1))
        await store.send(.login(.dismiss))
        await store.send(.login(.presented(.loginButtonTapped)))
    }

    @Test func theTabIsBoundAndQuittingIsConfirmedOrCancelled() async throws {
        let saving = SavedPhotos.State(saves: [1: Date(timeIntervalSince1970: 0)], lastSave: 1)
        let store = try await makeStore(AppFeature.State(screen: .main, saved: saving, sessionNumber: 1))
        await store.send(.binding(.set(\.tab.value, .todos))) { $0.tab.value = .todos }
        await store.send(.quitTapped) { $0.quit = .asking(during: [1]) }
        await store.send(.quitCancelled) { $0.quit = nil }
    }
}
