import BaselineStore
import Foundation
import Observation

/// The whole app, for any UI to bind to (SwiftUI's `App`, the terminal):
/// the navigation's store (``AppFeature``) and every tab's model.
///
/// ```swift
/// RootView(store: app.store)                    // switches on store.screen
///     .task { await app.store.send(.start).finish() }
/// PhotosView(browser: app.photos)               // one tab
/// ```
///
/// The tabs' models outlive sessions, except ``profile``, which belongs to
/// one (``AppFeature/State/sessionNumber``). Quitting is confirmed first
/// while a photo is being saved: the store keeps the request, this model
/// knows the work.
@MainActor
@Observable
public final class AppModel {
    /// Which screen shows, the login screen, the tab, the quit request.
    public let store: Store<AppFeature.State, AppFeature.Action>
    /// The Photos tab.
    public let photos: PhotoBrowser
    /// The Saved tab.
    public let saved: SavedPhotoBrowser
    /// The To-dos tab (seed 001, on BaselineStore); send it
    /// ``TodoList/Action/observe`` while the main screen shows (the list
    /// then follows the database, whichever tab is selected).
    public let todos: Store<TodoList.State, TodoList.Action>
    /// The Counter tab (seed 003, on BaselineStore).
    public let counter: Store<FactCounter.State, FactCounter.Action>

    @ObservationIgnored private let dependencies: AppDependencies
    /// The current session's profile, made when first asked for.
    @ObservationIgnored private var sessionProfile: (session: Int, model: MemberScreenModel)?

    /// The app on `dependencies`, showing ``AppFeature/Screen/launching``
    /// until the store is sent ``AppFeature/Action/start``.
    public init(dependencies: AppDependencies) {
        self.dependencies = dependencies
        let savedPhotos = SavedPhotos(repository: dependencies.savedPhotos, pipeline: dependencies.pipeline)
        photos = PhotoBrowser(
            catalog: PhotoCatalog(source: dependencies.photoSource),
            saved: savedPhotos,
            pipeline: dependencies.pipeline
        )
        saved = SavedPhotoBrowser(saved: savedPhotos)
        todos = Store(initialState: TodoList.State()) { TodoList(repository: dependencies.todos) }
        counter = Store(initialState: FactCounter.State()) { FactCounter(factClient: dependencies.facts) }
        store = Store(initialState: AppFeature.State()) {
            AppFeature()
        } withDependencies: {
            $0.session = SessionClient(dependencies)
        }
    }

    /// The Profile tab: a new model for each session, so one member never
    /// sees the last one's profile. Reading it tracks the session.
    public var profile: MemberScreenModel {
        let session = store.sessionNumber
        if let current = sessionProfile, current.session == session { return current.model }
        let model = MemberScreenModel(fetchMember: dependencies.fetchMember, factClient: dependencies.facts)
        sessionProfile = (session, model)
        return model
    }

    /// Whether the user is asked to confirm quitting: quitting was asked for
    /// while photos were being saved, and one of those saves still runs (a
    /// save started later, even of the same photo, does not bring the
    /// question back).
    public var isConfirmingQuit: Bool {
        guard let request = store.quitRequest else { return false }
        return !request.isDisjoint(with: photos.saved.runningSaves)
    }

    /// Whether the app can quit now; while a photo is being saved it asks
    /// first (``isConfirmingQuit``) and returns false.
    public func requestQuit() -> Bool {
        let saving = photos.saved.runningSaves
        guard !saving.isEmpty else {
            if store.quitRequest != nil { store.send(.quitCancelled) }
            return true
        }
        store.send(.quitRequested(during: saving))
        return false
    }

    /// The user chose not to quit.
    public func cancelQuit() {
        store.send(.quitCancelled)
    }

    /// Whether work the user started would be lost by quitting now.
    public var hasWorkInFlight: Bool {
        !photos.saved.runningSaves.isEmpty
    }
}
