import BaselineStore
import Logging

/// The whole app as one feature: which screen shows, the login screen
/// presented over it, every tab's state, this session's profile, and the
/// quit question. Any UI binds to its store (SwiftUI's `App`, the terminal).
///
/// ```swift
/// let store = AppFeature.store(dependencies)
/// switch store.screen {
/// case .launching: ProgressView()
/// case .unavailable(let message): RetryView(message) { store.send(.start) }
/// case .login:
///     if let login = store.scope(state: \.login, action: \.login) {
///         LoginView(store: login)
///     }
/// case .main:
///     TabView(selection: Binding(store.binding(\.tab.value))) {
///         PhotosView(store: store.scope(state: \.photos, action: \.photos))
///         …
///     }
/// }
/// .task { await store.send(.start).finish() }
/// ```
///
/// - **Start:** ``SessionClient/check`` says what the stored session is
///   worth. Signed in goes straight to the main screen; signed out, or a
///   session the server refused, shows the login screen; a server that
///   cannot be reached or cannot check is ``Screen/unavailable(_:)``, with a
///   retry: it is no reason to forget the session.
/// - **Login** is a presented ``LoginFeature``: its dismissal (a successful
///   login) shows the main screen. Its effects end with it.
/// - **The tabs** are children that outlive sessions: ``PhotoBrowser``,
///   ``SavedPhotos`` (the Saved tab, and every save), ``TodoList``,
///   ``FactCounter``; ``Favourites``, the live counts the photo tabs show,
///   started by the main screen. The **profile** (``ProfileFeature``) belongs to one
///   session: each entry to the main screen presents a new one, and leaving
///   it dismisses it, with its requests.
/// - **The tab** is a shared value: the last one chosen comes back at the
///   next launch (``AppDependencies/selectedTab``), once the main screen
///   sends ``Action/tab(_:)`` `.start`.
/// - **Log out** forgets the session and presents a fresh login screen.
/// - **Quit** (``Action/quitTapped``) is decided here: at once when no
///   photo is being saved, else ``State/quit`` asks first, until the saves
///   it asked about end (a later save does not bring the question back).
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

    /// Where quitting stands, once asked for.
    public enum Quit: Equatable, Sendable {
        /// The user is asked to confirm: these saves would be lost.
        case asking(during: Set<Int>)
        /// The app ends now.
        case confirmed
    }

    /// Every screen's state.
    public struct State: Equatable, Sendable {
        /// What shows now.
        public var screen: Screen
        /// The login screen, presented while ``screen`` is ``Screen/login``.
        public var login: LoginFeature.State?
        /// The main screen's tab (bound to its value): the last one, kept
        /// between launches in ``AppDependencies/selectedTab``.
        public var tab: Shared<AppTab>
        /// The Photos tab.
        public var photos: PhotoBrowser.State
        /// The Saved tab, and the saves running.
        public var saved: SavedPhotos.State
        /// The To-dos tab.
        public var todos: TodoList.State
        /// The Counter tab.
        public var counter: FactCounter.State
        /// The live favourite counts, shown on the Photos and Saved tabs.
        public var favourites: Favourites.State
        /// The Profile tab: this session's, presented while ``screen`` is ``Screen/main``.
        public var profile: ProfileFeature.State?
        /// The member logged in, while the main screen shows: what the
        /// member's own data (the to-do sync) is opened for.
        public var member: User.ID?
        /// Whose to-do list is open: the list and its sync start once the
        /// member's own database is (``AppDependencies/openTodos``).
        public var openTodoList: User.ID?
        /// Counts the logged-in sessions: each entry to the main screen is a new one.
        public var sessionNumber: Int
        /// What went wrong with the last log out, if it failed.
        public var logOutErrorMessage: String?
        /// Whether a log out is in flight (another tap does nothing).
        public var isLoggingOut: Bool
        /// Where quitting stands; `nil` until it is asked for.
        public var quit: Quit?

        /// The app as it starts: checking the stored session.
        public init(
            screen: Screen = .launching,
            login: LoginFeature.State? = nil,
            tab: AppTab = .photos,
            photos: PhotoBrowser.State = PhotoBrowser.State(),
            saved: SavedPhotos.State = SavedPhotos.State(),
            todos: TodoList.State = TodoList.State(),
            counter: FactCounter.State = FactCounter.State(),
            favourites: Favourites.State = Favourites.State(),
            profile: ProfileFeature.State? = nil,
            member: User.ID? = nil,
            openTodoList: User.ID? = nil,
            sessionNumber: Int = 0,
            logOutErrorMessage: String? = nil,
            isLoggingOut: Bool = false,
            quit: Quit? = nil
        ) {
            self.screen = screen
            self.login = login
            self.tab = Shared(tab)
            self.photos = photos
            self.saved = saved
            self.todos = todos
            self.counter = counter
            self.favourites = favourites
            self.profile = profile
            self.member = member
            self.openTodoList = openTodoList
            self.sessionNumber = sessionNumber
            self.logOutErrorMessage = logOutErrorMessage
            self.isLoggingOut = isLoggingOut
            self.quit = quit
        }

        /// Whether the user is asked to confirm quitting.
        public var isConfirmingQuit: Bool {
            if case .asking = quit { true } else { false }
        }
    }

    /// What the app's screens can do.
    @CasePathable
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
        /// The Photos tab's actions.
        case photos(PhotoBrowser.Action)
        /// The Saved tab's and the saves' actions.
        case saved(SavedPhotos.Action)
        /// The To-dos tab's actions.
        case todos(TodoList.Action)
        /// The Counter tab's actions.
        case counter(FactCounter.Action)
        /// The live favourites' actions.
        case favourites(Favourites.Action)
        /// The kept tab's loading and saving.
        case tab(SharedAction<AppTab>)
        /// The profile's actions and its dismissal.
        case profile(PresentationAction<ProfileFeature.Action>)
        /// The member's to-do list opened.
        case todoListOpened(User.ID)
        /// Asks to quit: at once when no photo is being saved, else the question shows.
        case quitTapped
        /// The user chose to quit anyway: the running saves are dropped.
        case quitConfirmed
        /// The user chose not to quit.
        case quitCancelled
    }

    /// The notice over a login screen shown because the session ended.
    public static let sessionEndedNotice = "Your session has ended. Log in again."

    @Dependency(\.session) var session
    let dependencies: AppDependencies
    let logger: Logger

    enum CancelID { case sessionCheck }

    /// The app's feature on `dependencies`; the login screen logs its failures to `logger`.
    public init(dependencies: AppDependencies, logger: Logger = Logger(label: "spacephotos.login")) {
        self.dependencies = dependencies
        self.logger = logger
    }

    /// A store of the app on `dependencies` (its session among them),
    /// showing ``Screen/launching`` until it is sent ``Action/start``.
    @MainActor
    public static func store(
        _ dependencies: AppDependencies,
        logger: Logger = Logger(label: "spacephotos.login")
    ) -> Store<State, Action> {
        Store(initialState: State()) {
            AppFeature(dependencies: dependencies, logger: logger)
        } withDependencies: {
            $0.session = dependencies.session
        }
    }

    /// The tabs, then the app's own logic (which sees what they changed),
    /// with the login screen and the profile presented.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Scope(state: \.photos, action: \.photos) {
            PhotoBrowser(catalog: PhotoCatalog(source: dependencies.photoSource))
        }
        Scope(state: \.saved, action: \.saved) {
            SavedPhotos(repository: dependencies.savedPhotos, pipeline: dependencies.pipeline)
        }
        Scope(state: \.todos, action: \.todos) { TodoList(repository: dependencies.todos, sync: dependencies.todoSync) }
        Scope(state: \.counter, action: \.counter) {
            FactCounter(factClient: dependencies.facts, count: dependencies.count)
        }
        Scope(state: \.favourites, action: \.favourites) { Favourites(client: dependencies.favourites) }
        Reduce { state, action in
            let effect = navigate(&state, action)
            if case let .asking(saves) = state.quit, saves.isDisjoint(with: state.saved.runningSaves) {
                // The saves it asked about are over: nothing is left to lose.
                state.quit = nil
            }
            return effect
        }
        .presenting(\.login, action: \.login) { LoginFeature(logger: logger) }
        .presenting(\.profile, action: \.profile) { ProfileFeature(factClient: dependencies.facts) }
        .sharing(\.tab, action: \.tab, dependencies.selectedTab)
    }

    private func navigate(_ state: inout State, _ action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.screen = .launching
            state.login = nil
            state.isLoggingOut = false
            return .run(name: "check the stored session") { [session] send in
                await send(.sessionChecked(await session.check()))
            }
            .cancellable(id: CancelID.sessionCheck, cancelInFlight: true)

        case let .sessionChecked(.signedIn(user)):
            return enterMain(&state, as: user.id)

        case .sessionChecked(.signedOut):
            presentLogin(&state, notice: nil)
            return .none

        case .sessionChecked(.ended):
            presentLogin(&state, notice: Self.sessionEndedNotice)
            return .none

        case let .sessionChecked(.offline(reason)):
            state.screen = .unavailable("The server cannot be reached (\(reason)). Check that it runs, then retry.")
            return .none

        case let .sessionChecked(.failed(message)):
            state.screen = .unavailable("The server could not check your session (\(message)). Retry in a moment.")
            return .none

        case .logOutButtonTapped:
            guard !state.isLoggingOut else { return .none }
            state.isLoggingOut = true
            state.logOutErrorMessage = nil
            return .run(name: "log out") { [session] send in
                try await session.logOut()
                await send(.logOutFinished(errorMessage: nil))
            } catch: { error, send in
                await send(.logOutFinished(errorMessage: ErrorMessage.line("Logging out failed", error)))
            }

        case .logOutFinished(errorMessage: nil):
            presentLogin(&state, notice: nil)
            // The next member's favourites and to-dos are not this one's.
            state.favourites = Favourites.State()
            state.todos = TodoList.State()
            return .merge(.send(.favourites(.stop)), .send(.todos(.sync(.stop))), .send(.todos(.todos(.stop))))

        case let .logOutFinished(errorMessage: message?):
            state.isLoggingOut = false
            state.logOutErrorMessage = message
            return .none

        case .login(.dismiss):
            // The login screen has no way back: it dismisses itself once
            // logged in, and that is its only dismissal. One that arrives
            // while it is not presented means nothing.
            guard let login = state.login else { return .none }
            return enterMain(&state, as: login.member)

        case let .todoListOpened(member):
            // A list opened for a session already over stays shut.
            guard state.member == member else { return .none }
            state.openTodoList = member
            return .none

        case .quitTapped:
            let running = state.saved.runningSaves
            state.quit = running.isEmpty ? .confirmed : .asking(during: running)
            return .none

        case .quitConfirmed:
            state.quit = .confirmed
            return .send(.saved(.cancelSaves))

        case .quitCancelled:
            state.quit = nil
            return .none

        case .binding, .login(.presented), .photos, .saved, .todos, .counter, .favourites, .tab, .profile:
            return .none
        }
    }

    private func presentLogin(_ state: inout State, notice: String?) {
        state.isLoggingOut = false
        state.login = LoginFeature.State(notice: notice)
        state.profile = nil
        state.member = nil
        state.openTodoList = nil
        state.screen = .login
    }

    private func enterMain(_ state: inout State, as member: User.ID) -> Effect<Action> {
        state.member = member
        state.login = nil
        state.logOutErrorMessage = nil
        state.sessionNumber += 1
        state.profile = ProfileFeature.State(id: state.sessionNumber)
        state.screen = .main
        return .run(name: "open \(member)'s to-dos") { [openTodos = dependencies.openTodos] send in
            try await openTodos(member)
            await send(.todoListOpened(member))
        } catch: { error, send in
            await send(.todos(.failed(ErrorMessage.line("The to-do list could not be opened", error))))
        }
    }
}
