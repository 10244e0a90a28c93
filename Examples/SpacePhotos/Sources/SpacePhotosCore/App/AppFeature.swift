import BaselineHTTP
import BaselineStore
import Logging

/// The app's navigation as a feature: which screen shows, the login screen
/// presented over it, the main screen's tab, and the quit confirmation.
///
/// ```swift
/// switch store.screen {
/// case .launching: ProgressView()
/// case .unavailable(let message): RetryView(message) { store.send(.start) }
/// case .login:
///     if let login = store.scope(state: \.login, action: \.login) {
///         LoginView(store: login)
///     }
/// case .main: TabView(selection: Binding(store.binding(\.tab))) { … }
/// }
/// .task { await store.send(.start).finish() }
/// ```
///
/// - **Start:** a stored session goes straight to the main screen once the
///   server accepts it (an expired ID token is refreshed on the way);
///   without one, or when the server refuses it (401, 403, a refresh token
///   it rejects), the login screen shows. Any other failure (the server
///   unreachable, a 5xx, an answer that makes no sense) is
///   ``Screen/unavailable(_:)``, with a retry: it is no reason to forget
///   the session.
/// - **Login** is a presented ``LoginFeature``: its dismissal (a successful
///   login) shows the main screen. Its effects end with it.
/// - **Log out** forgets the session and presents a fresh login screen.
/// - **Quit** is confirmed first while work runs; ``AppModel`` knows the work.
public struct AppFeature: Reducer {
    /// The screens of the app.
    public enum Screen: Equatable, Sendable {
        /// Checking the stored session.
        case launching
        /// The server could not be reached; the message says why.
        case unavailable(String)
        /// Logging in: ``State/login`` is presented.
        case login
        /// Logged in: the tabs.
        case main
    }

    /// What the app shows.
    public struct State: Equatable, Sendable {
        /// What shows now.
        public var screen: Screen
        /// The login screen, presented while ``screen`` is ``Screen/login``.
        public var login: LoginFeature.State?
        /// The main screen's tab (bound).
        public var tab: AppTab
        /// What went wrong with the last log out, if it failed.
        public var logOutErrorMessage: String?
        /// Whether a log out is in flight (another tap does nothing).
        public var isLoggingOut: Bool
        /// The saves quitting would lose (``SavedPhotos/runningSaves``), when
        /// quitting was asked for while they ran; `nil` otherwise. The
        /// question stands while one of them still runs.
        public var quitRequest: Set<Int>?
        /// Counts the logged-in sessions: each entry to the main screen is a
        /// new one, and what belongs to a session (the profile) is made anew.
        public var sessionNumber: Int

        /// The app as it starts: checking the stored session.
        public init(
            screen: Screen = .launching,
            login: LoginFeature.State? = nil,
            tab: AppTab = .photos,
            logOutErrorMessage: String? = nil,
            isLoggingOut: Bool = false,
            quitRequest: Set<Int>? = nil,
            sessionNumber: Int = 0
        ) {
            self.screen = screen
            self.login = login
            self.tab = tab
            self.logOutErrorMessage = logOutErrorMessage
            self.isLoggingOut = isLoggingOut
            self.quitRequest = quitRequest
            self.sessionNumber = sessionNumber
        }
    }

    /// What the app's screens can do.
    public enum Action: BindableAction, Equatable, Sendable {
        /// A bound field changed (the tab).
        case binding(BindingAction<State>)
        /// Checks the stored session: at launch, and to retry.
        case start
        /// What the check found.
        case sessionChecked(SessionCheck)
        /// Forgets the session.
        case logOutButtonTapped
        /// The log out ended; the message says why it failed, if it did.
        case logOutFinished(errorMessage: String?)
        /// The login screen's actions and its dismissal.
        case login(PresentationAction<LoginFeature.Action>)
        /// Asks to quit while these saves run: the confirmation shows.
        case quitRequested(during: Set<Int>)
        /// The user chose not to quit, or nothing is left to lose.
        case quitCancelled
    }

    /// What checking the stored session found.
    public enum SessionCheck: Equatable, Sendable {
        /// The server accepted it.
        case valid
        /// None is stored.
        case absent
        /// The server refused it; it has been forgotten.
        case ended
        /// It could not be checked; the message says why.
        case unavailable(String)
    }

    /// The notice over a login screen shown because the session ended.
    public static let sessionEndedNotice = "Your session has ended. Log in again."

    let logger: Logger

    /// The app's feature; the login screen logs its failures to `logger`.
    public init(logger: Logger = Logger(label: "spacephotos.login")) {
        self.logger = logger
    }

    /// Runs the presented login screen, then the app's own logic.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        Navigation()
            .presenting(
                \.login,
                action: \.login
            ) {
                LoginFeature(logger: logger)
            }
            .reduce(into: &state, action: action)
    }

    /// The app's own logic, with the login screen's state as a plain field.
    struct Navigation: Reducer {
        @Dependency(\.session) var session

        enum CancelID { case sessionCheck }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .binding:
                return BindingReducer().reduce(into: &state, action: action)

            case .start:
                state.screen = .launching
                state.login = nil
                state.isLoggingOut = false
                return .run(name: "check the stored session") { [session] send in
                    await send(.sessionChecked(await AppFeature.check(session)))
                }
                .cancellable(id: CancelID.sessionCheck, cancelInFlight: true)

            case .sessionChecked(.valid):
                enterMain(&state)
                return .none

            case .sessionChecked(.absent):
                presentLogin(&state, notice: nil)
                return .none

            case .sessionChecked(.ended):
                presentLogin(&state, notice: AppFeature.sessionEndedNotice)
                return .none

            case let .sessionChecked(.unavailable(message)):
                state.screen = .unavailable(message)
                return .none

            case .logOutButtonTapped:
                guard !state.isLoggingOut else { return .none }
                state.isLoggingOut = true
                state.logOutErrorMessage = nil
                return .run(name: "log out") { [session] send in
                    do {
                        try await session.logOut()
                        await send(.logOutFinished(errorMessage: nil))
                    } catch is CancellationError {
                        return
                    } catch {
                        await send(.logOutFinished(errorMessage: ErrorMessage.line("Logging out failed", error)))
                    }
                }

            case .logOutFinished(errorMessage: nil):
                state.isLoggingOut = false
                presentLogin(&state, notice: nil)
                return .none

            case let .logOutFinished(errorMessage: message?):
                state.isLoggingOut = false
                state.logOutErrorMessage = message
                return .none

            case .login(.dismiss):
                // The login screen has no way back: it dismisses itself once
                // logged in, and that is its only dismissal. One that arrives
                // while it is not presented means nothing.
                guard state.login != nil else { return .none }
                enterMain(&state)
                return .none

            case .login(.presented):
                return .none

            case let .quitRequested(saves):
                state.quitRequest = saves
                return .none

            case .quitCancelled:
                state.quitRequest = nil
                return .none
            }
        }

        private func presentLogin(_ state: inout State, notice: String?) {
            state.isLoggingOut = false
            state.login = LoginFeature.State(notice: notice)
            state.screen = .login
        }

        private func enterMain(_ state: inout State) {
            state.login = nil
            state.logOutErrorMessage = nil
            state.tab = .photos
            state.sessionNumber += 1
            state.screen = .main
        }
    }

    /// Checks the stored session with the server; a refused one is forgotten.
    static func check(_ session: SessionClient) async -> SessionCheck {
        do {
            return try await session.restore() != nil ? .valid : .absent
        } catch  where isRefusal(error) {
            // Expired and not refreshable, or revoked: forget it and log in again.
            try? await session.logOut()
            return .ended
        } catch  where isUnreachable(error) {
            return .unavailable("The server cannot be reached (\(reason(error))). Check that it runs, then retry.")
        } catch {
            return .unavailable(
                "The server could not check your session (\(ErrorMessage.line(for: error))). Retry in a moment."
            )
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
        case LoginError.invalidCredentials, AuthServiceError.notLoggedIn:
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
