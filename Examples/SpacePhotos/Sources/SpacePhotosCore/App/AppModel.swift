import BaselineHTTP
import BaselineStore
import Foundation
import Observation

/// The whole app, for any UI to bind to (SwiftUI's `App`, the terminal):
/// which screen shows, the main screen's tab, and every feature's model.
///
/// ```swift
/// switch app.screen {
/// case .launching: ProgressView()
/// case .unavailable(let message): RetryView(message) { Task { await app.start() } }
/// case .login: LoginView(model: app.login)
/// case .main: TabView(selection: $app.tab) { … }
/// }
/// .task { await app.start() }
/// ```
///
/// - **Start:** a stored session goes straight to the main screen once the
///   server accepts it (an expired ID token is refreshed on the way);
///   without one, or when the server refuses it (401, 403, a refresh token
///   it rejects), the login screen shows. Any other failure (the server
///   unreachable, a 5xx, an answer that makes no sense) is
///   ``Screen/unavailable(_:)``, with a retry: it is no reason to forget
///   the session.
/// - **Login:** a successful login dismisses the login screen.
/// - **Log out** forgets the session and shows the login screen.
/// - **Quit** asks for confirmation while a photo is being saved.
@MainActor
@Observable
public final class AppModel {
    /// The screens of the app.
    public enum Screen: Equatable, Sendable {
        /// Checking the stored session.
        case launching
        /// The server could not be reached; the message says why.
        case unavailable(String)
        /// Logging in.
        case login
        /// Logged in: the tabs.
        case main
    }

    /// What shows now.
    public private(set) var screen: Screen = .launching
    /// The login screen's model, while it shows.
    public private(set) var login: LoginViewModel?
    /// Why the login screen shows, when it is not the first start (the
    /// session expired); `nil` otherwise.
    public private(set) var loginNotice: String?
    /// The main screen's tab.
    public var tab: AppTab = .photos
    /// Whether the user is asked to confirm quitting: quitting was asked for
    /// while a save runs, and it still runs.
    public var isConfirmingQuit: Bool { quitRequested && hasWorkInFlight }
    private var quitRequested = false
    /// What went wrong with the last log out, if it failed.
    public private(set) var errorMessage: String?

    /// The Photos tab.
    public let photos: PhotoBrowser
    /// The Saved tab.
    public let saved: SavedPhotoBrowser
    /// The To-dos tab.
    public let todos: TodoListViewModel
    /// The Counter tab (seed 003, on BaselineStore).
    public let counter: Store<FactCounter.State, FactCounter.Action>
    /// The Profile tab: made anew for each login.
    public private(set) var profile: MemberScreenModel

    @ObservationIgnored private let dependencies: AppDependencies
    /// Waits for the login screen's dismissal.
    @ObservationIgnored private var loginWatcher: Task<Void, Never>?

    /// The app on `dependencies`, showing ``Screen/launching`` until ``start()`` runs.
    public init(dependencies: AppDependencies) {
        self.dependencies = dependencies
        let savedPhotos = SavedPhotos(repository: dependencies.savedPhotos, pipeline: dependencies.pipeline)
        photos = PhotoBrowser(
            catalog: PhotoCatalog(source: dependencies.photoSource),
            saved: savedPhotos,
            pipeline: dependencies.pipeline
        )
        saved = SavedPhotoBrowser(saved: savedPhotos)
        todos = TodoListViewModel(repository: dependencies.todos)
        counter = Store(initialState: FactCounter.State()) { FactCounter(factClient: dependencies.facts) }
        profile = MemberScreenModel(fetchMember: dependencies.fetchMember, factClient: dependencies.facts)
    }

    deinit {
        loginWatcher?.cancel()
    }

    /// Checks the stored session and shows the main screen or the login
    /// screen (or ``Screen/unavailable(_:)``). Call it at launch, and to retry.
    public func start() async {
        screen = .launching
        do {
            if try await dependencies.restoreSession() != nil {
                enterMain()
            } else {
                showLogin(notice: nil)
            }
        } catch is CancellationError {
            return
        } catch  where Self.isRefusal(error) {
            // The server refused the session (expired and not refreshable,
            // or revoked): forget it and log in again.
            try? await dependencies.logOut()
            showLogin(notice: "Your session has ended. Log in again.")
        } catch  where Self.isUnreachable(error) {
            screen = .unavailable(
                "The server cannot be reached (\(Self.reason(error))). Check that it runs, then retry."
            )
        } catch {
            screen = .unavailable(
                "The server could not check your session (\(ErrorMessage.line(for: error))). Retry in a moment."
            )
        }
    }

    /// Forgets the session and shows the login screen.
    public func logOut() async {
        errorMessage = nil
        do {
            try await dependencies.logOut()
        } catch {
            errorMessage = ErrorMessage.line("Logging out failed", error)
            return
        }
        showLogin(notice: nil)
    }

    /// Whether the app can quit now; while a photo is being saved it asks
    /// first (``isConfirmingQuit``) and returns false.
    public func requestQuit() -> Bool {
        guard hasWorkInFlight else { return true }
        quitRequested = true
        return false
    }

    /// The user chose not to quit.
    public func cancelQuit() {
        quitRequested = false
    }

    /// Whether work the user started would be lost by quitting now.
    public var hasWorkInFlight: Bool {
        !photos.saved.savingIDs.isEmpty
    }

    private func showLogin(notice: String?) {
        let login = LoginViewModel(authService: dependencies.auth)
        self.login = login
        loginNotice = notice
        screen = .login
        loginWatcher?.cancel()
        loginWatcher = Task { [weak self, dismissals = login.dismissals] in
            for await _ in dismissals {
                self?.enterMain()
                return
            }
        }
    }

    private func enterMain() {
        loginWatcher?.cancel()
        loginWatcher = nil
        login = nil
        loginNotice = nil
        profile = MemberScreenModel(fetchMember: dependencies.fetchMember, factClient: dependencies.facts)
        tab = .photos
        screen = .main
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
