import BaselineStore
import Foundation

/// The saved photos: the Saved tab (the list from the database, its
/// selection, removing) and the save buttons (which photos are being saved).
///
/// ```swift
/// Button("Save") { store.send(.toggleSave(photo)) }
///     .disabled(store.isSaving(photo))
///     .overlay { if store.isSaving(photo) { ProgressView() } }
/// List(store.photos.value, selection: Binding(store.binding(\.selection.id))) { Text($0.photo.title) }
///     .task { store.send(.photos(.start)) }
/// ```
///
/// - ``State/photos`` is a live query (a `Fetched` value): after
///   `.photos(.start)` it follows the database, not the actions: a photo
///   saved here or on another screen shows up once the write commits. It
///   runs until `.photos(.stop)`, a failed read (which sets
///   ``State/errorMessage`` and keeps the last list), or the store's end.
/// - Each save has a number never reused (``State/saves``), which tells it
///   from a later save of the same photo: the quit question
///   (``AppFeature``) waits on the saves running when it was asked.
/// - A save ends with ``Action/saveFinished(_:errorMessage:)``; a cancelled
///   one (``Action/cancelSaves``, quitting) stores nothing and shows no error.
public struct SavedPhotos: Reducer {
    /// What the Saved tab and the save buttons show.
    public struct State: Equatable, Sendable {
        /// Every saved photo, most recently saved first, as the database last
        /// listed them; whether they are being read, or failed.
        public var photos: Fetched<[SavedPhoto]>
        /// What to tell the user about the last failed save, unsave or read; `nil` otherwise.
        public var errorMessage: String?
        /// The saves running, by their number, and the photo each saves.
        public var saves: [Int: SpacePhoto.ID]
        /// The number of the last save started.
        public var lastSave: Int
        /// The Saved tab's selection (bound); see ``selectedPhoto``.
        public var selection: ListSelection<SpacePhoto.ID>

        /// Nothing saved, nothing read yet.
        public init(
            photos: Fetched<[SavedPhoto]> = Fetched([]),
            errorMessage: String? = nil,
            saves: [Int: SpacePhoto.ID] = [:],
            lastSave: Int = 0,
            selection: ListSelection<SpacePhoto.ID> = .init()
        ) {
            self.photos = photos
            self.errorMessage = errorMessage
            self.saves = saves
            self.lastSave = lastSave
            self.selection = selection
        }

        /// The numbers of the saves running now.
        public var runningSaves: Set<Int> { Set(saves.keys) }

        /// Whether `photo`'s save is running (its button is disabled meanwhile).
        public func isSaving(_ photo: SpacePhoto) -> Bool {
            saves.values.contains(photo.id)
        }

        /// Whether `photo` is in the saved list.
        public func isSaved(_ photo: SpacePhoto) -> Bool {
            photos.value.contains { $0.id == photo.id }
        }

        /// The selected photo while it is saved; when the selection is gone
        /// (removed here or elsewhere), the first saved photo.
        public var selectedPhoto: SavedPhoto? {
            selectedIndex.map { photos.value[$0] }
        }

        /// The position of ``selectedPhoto`` in the list.
        public var selectedIndex: Int? {
            selection.index(in: photos.value) ?? (photos.value.isEmpty ? nil : 0)
        }
    }

    /// What the saved photos can do, and what their work answers.
    @CasePathable
    public enum Action: BindableAction, Equatable, Sendable {
        /// The selection changed (bound).
        case binding(BindingAction<State>)
        /// The saved list's live query: `.start` and `.stop` it; the
        /// database's lists (`.loaded`) and a failed read (`.failed`) arrive here.
        case photos(FetchAction<[SavedPhoto]>)
        /// Saves `photo`, or removes it when it is saved; nothing while its save runs.
        case toggleSave(SpacePhoto)
        /// Fetches `photo`'s image and stores both; nothing while its save runs.
        case save(SpacePhoto)
        /// Save number `save` ended; the message says why it failed, if it did.
        case saveFinished(Int, errorMessage: String?)
        /// Stops every running save: nothing of them is stored.
        case cancelSaves
        /// Removes `photo` from the saved list.
        case unsave(SpacePhoto)
        /// Removes the selected photo; the row below takes the selection.
        case removeSelectedTapped
        /// Moves the selection by rows (negative is up), stopping at the ends.
        case moveSelection(by: Int)
        /// A read, a save or an unsave failed; the message says why.
        case failed(String)
    }

    let repository: SavedPhotoRepository
    let imageData: @Sendable (URL) async throws -> (data: Data, mediaType: String)

    struct Save: Hashable, Sendable { let number: Int }
    enum CancelID { case saves }

    /// - Parameters:
    ///   - imageData: Fetches a photo's image: its bytes and media type
    ///     (an ``ImagePipeline``'s cached data, in the app).
    public init(
        repository: SavedPhotoRepository,
        imageData: @escaping @Sendable (URL) async throws -> (data: Data, mediaType: String)
    ) {
        self.repository = repository
        self.imageData = imageData
    }

    /// The bindings, then the saves and the selection, under the live query.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            switch action {
            case .binding:
                return .none

            case let .photos(.failed(failure)):
                state.errorMessage = ErrorMessage.line("The saved photos could not be read", failure.error)
                return .none

            case .photos:
                return .none

            case let .toggleSave(photo):
                guard !state.isSaving(photo) else { return .none }
                return state.isSaved(photo) ? unsave(photo, &state) : save(photo, &state)

            case let .save(photo):
                guard !state.isSaving(photo) else { return .none }
                return save(photo, &state)

            case let .saveFinished(number, message):
                state.saves[number] = nil
                if let message { state.errorMessage = message }
                return .none

            case .cancelSaves:
                state.saves = [:]
                return .cancel(id: CancelID.saves)

            case let .unsave(photo):
                return unsave(photo, &state)

            case .removeSelectedTapped:
                guard let photo = state.selectedPhoto else { return .none }
                state.selection.id = photo.id
                state.selection.removing(photo.id, from: state.photos.value)
                return unsave(photo.photo, &state)

            case let .moveSelection(offset):
                let photos = state.photos.value
                if state.selection.index(in: photos) == nil { state.selection.id = state.selectedPhoto?.id }
                state.selection.move(by: offset, in: photos)
                return .none

            case let .failed(message):
                state.errorMessage = message
                return .none
            }
        }
        .fetching(\.photos, action: \.photos) { [repository] in repository.live() }
    }

    private func save(_ photo: SpacePhoto, _ state: inout State) -> Effect<Action> {
        state.lastSave += 1
        let number = state.lastSave
        state.saves[number] = photo.id
        state.errorMessage = nil
        return .run(name: "save \(photo.day)") { [repository, imageData] send in
            do {
                let image = try await imageData(photo.url)
                try Task.checkCancellation()
                try await repository.save(photo, image: image.data, mediaType: image.mediaType)
                await send(.saveFinished(number, errorMessage: nil))
            } catch is CancellationError {
                return
            } catch {
                await send(.saveFinished(number, errorMessage: Self.message(for: error)))
            }
        }
        .cancellable(id: CancelID.saves)
    }

    private func unsave(_ photo: SpacePhoto, _ state: inout State) -> Effect<Action> {
        state.errorMessage = nil
        return .run(name: "unsave \(photo.day)") { [repository] _ in
            try await repository.remove(photo.id)
        } catch: { error, send in
            await send(.failed(Self.message(for: error)))
        }
    }

    static func message(for error: any Error) -> String {
        switch error {
        case let error as SavedPhotoError: error.description
        default: ErrorMessage.line("The photo could not be saved", error)
        }
    }
}
