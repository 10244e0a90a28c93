import BaselineStore
import Foundation

/// The to-do list as a feature: the list, a search that narrows it, the
/// selection, the new item's text, the item edited in place (a presented
/// ``TodoEditor``), and the deletion waiting for confirmation (a presented
/// ``TodoDeletion``).
///
/// ```swift
/// List(store.todos.value, selection: Binding(store.binding(\.selectedID))) { Text($0.text) }
///     .searchable(text: Binding(store.binding(\.search)))
///     .overlay { if store.todos.isLoading && store.todos.value.isEmpty { ProgressView() } }
///     .task { store.send(.todos(.start)) }
/// TextField("New to-do", text: Binding(store.binding(\.draft)))
///     .onSubmit { store.send(.submitDraft) }
/// ```
///
/// - The list is a live query (``State/todos``, a `Fetched` value): after
///   `.todos(.start)` it follows the database, not the actions. Add an item
///   here, or from any other actor or screen, and the list follows once the
///   write commits. The observation belongs to the store: it runs until
///   `.todos(.stop)`, a failed read (which sets ``State/errorMessage`` and
///   keeps the last list), or the store's end; the task that sent `.start`
///   need not wait on it.
/// - The search (``State/search``, bound) narrows the list to the items
///   whose text contains it, ignoring the case of ASCII letters (SQLite's
///   `lower`); the text is matched as typed, `%` and `_` included. An empty
///   search lists every item. Each change starts the query over: the list
///   shows the last result, with `todos.isLoading` set, until the new one
///   arrives.
/// - The selection is kept when the list lacks it: an item just added is
///   selected before the list that holds it arrives, and a selected item
///   the search hides is selected again when it shows.
/// - Typed text is never lost: the draft and the editor's text are cleared
///   only when the save of that very text succeeded; a refused or failed
///   save leaves them as they were, with ``State/errorMessage`` set. The
///   editor closes by itself only when its item was deleted elsewhere,
///   which only the unsearched list tells.
/// - The writes are the list's: an edit's save runs on after its editor is
///   dismissed, and a newer save of the same item cancels an older one still
///   running, so the last text typed is the one stored.
/// - The repository is passed to the initialiser: the plain style for a
///   client only this feature uses (``SessionClient`` shows the other).
public struct TodoList: Reducer {
    /// What the to-do screen shows.
    public struct State: Equatable, Sendable {
        /// The items that match ``search``, oldest first, as the database
        /// last listed them; whether it is being read, or failed.
        public var todos: Fetched<[Todo]>
        /// The text the listed items contain (bound); empty lists them all.
        public var search: String
        /// The selected item (bound); ``selectedTodo`` is nil while it is not listed.
        public var selection: ListSelection<Int64>
        /// What to tell the user about the last refused action or failed read; `nil` otherwise.
        public var errorMessage: String?
        /// The text of the item about to be added, bound.
        public var draft: String
        /// The item edited in place, while one is.
        public var editor: TodoEditor.State?
        /// The deletion waiting for the user's confirmation, while one is.
        public var deletion: TodoDeletion.State?
        /// The list's sync with the member's other devices.
        public var sync: TodoSync.State

        /// An empty list, not read yet.
        public init(
            todos: Fetched<[Todo]> = Fetched([]),
            search: String = "",
            selectedID: Int64? = nil,
            errorMessage: String? = nil,
            draft: String = "",
            editor: TodoEditor.State? = nil,
            deletion: TodoDeletion.State? = nil,
            sync: TodoSync.State = TodoSync.State()
        ) {
            self.todos = todos
            self.search = search
            self.selection = ListSelection(selectedID)
            self.errorMessage = errorMessage
            self.draft = draft
            self.editor = editor
            self.deletion = deletion
            self.sync = sync
        }

        /// The selected item, if it is listed.
        public var selectedTodo: Todo? {
            selectedIndex.map { todos.value[$0] }
        }

        /// The selected item's position in the listed items (``todos``' value).
        public var selectedIndex: Int? {
            selection.index(in: todos.value)
        }

        /// The selected item's id (bound).
        public var selectedID: Int64? {
            get { selection.id }
            set { selection.id = newValue }
        }
    }

    /// What the to-do screen can do.
    @CasePathable
    public enum Action: BindableAction, Equatable, Sendable {
        /// A bound field changed: the draft, the search or the selection
        /// (other fields change through their own actions).
        case binding(BindingAction<State>)
        /// The list's live query: `.start` and `.stop` it; the database's
        /// lists (`.loaded`) and a failed read (`.failed`) arrive here.
        case todos(FetchAction<[Todo]>)
        /// Moves the selection by rows (negative is up), stopping at the
        /// ends; see ``ListSelection/move(by:in:)-(_,[Item])``.
        case moveSelection(by: Int)
        /// Adds the draft as a new item.
        case submitDraft
        /// The draft `text` was added as `todo`.
        case draftAdded(Todo, text: String)
        /// Item `id` was saved with `text`.
        case editSaved(id: Int64, text: String)
        /// A change was refused or failed; the message says why.
        case failed(String)
        /// Starts editing an item in place.
        case editTapped(id: Int64)
        /// Asks for confirmation before deleting an item.
        case deleteTapped(id: Int64)
        /// The item edited in place: its actions, or its dismissal (Esc).
        case editor(PresentationAction<TodoEditor.Action>)
        /// The deletion's confirmation, or its dismissal (keep the item).
        case deletion(PresentationAction<TodoDeletion.Action>)
        /// The sync's actions.
        case sync(TodoSync.Action)
    }

    let repository: TodoRepository
    let sync: TodoSyncClient

    /// A list over `repository`, synced through `sync`.
    public init(repository: TodoRepository, sync: TodoSyncClient = .unavailable) {
        self.repository = repository
        self.sync = sync
    }

    /// The save of one item: a newer one cancels an older one still running.
    struct EditSave: Hashable, Sendable { let id: Int64 }

    /// The bindings, the list's own logic, and the presented editor and
    /// confirmation, followed by the live query, whose results are in the
    /// state by the time the list's logic sees them.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Scope(state: \.sync, action: \.sync) { TodoSync(client: sync) }
        Reduce { state, action in
            switch action {
            case .binding, .sync:
                return .none

            case let .todos(.loaded(todos)):
                // The selection is kept even when this list lacks it: an item
                // just added is selected before the list that holds it arrives
                // (ids are never reused, so a deleted item's id selects nothing).
                if state.search.isEmpty, let editing = state.editor?.id,
                    !todos.contains(where: { $0.id == editing })
                {
                    // Deleted elsewhere while edited: nothing left to save into.
                    // (A search may merely hide it: then the editor stays.)
                    state.editor = nil
                }
                return .none

            case let .todos(.failed(failure)):
                if let message = TodoList.message(for: failure.error, reading: true) {
                    state.errorMessage = message
                }
                return .none

            case .todos:
                return .none

            case let .moveSelection(offset):
                let todos = state.todos.value
                state.selection.move(by: offset, in: todos)
                return .none

            case .submitDraft:
                state.errorMessage = nil
                return .run(name: "add a to-do") { [text = state.draft, repository] send in
                    let todo = try await repository.add(text)
                    await send(.draftAdded(todo, text: text))
                } catch: { error, send in
                    if let message = TodoList.message(for: error) { await send(.failed(message)) }
                }

            case let .draftAdded(todo, text):
                // Cleared only if unchanged meanwhile: typing goes on during the write.
                if state.draft == text { state.draft = "" }
                state.selectedID = todo.id
                return .none

            case let .failed(message):
                state.errorMessage = message
                return .none

            case let .editTapped(id):
                guard let todo = state.todos.value.first(where: { $0.id == id }) else { return .none }
                state.selectedID = id
                state.editor = TodoEditor.State(id: id, text: todo.text)
                state.errorMessage = nil
                return .none

            case let .deleteTapped(id):
                guard let todo = state.todos.value.first(where: { $0.id == id }) else { return .none }
                state.deletion = TodoDeletion.State(todo: todo)
                return .none

            case .editor(.presented(.saveTapped)):
                guard let editor = state.editor else { return .none }
                state.errorMessage = nil
                // Run here, not in the editor: dismissing it must not undo the save.
                return .run(name: "save to-do #\(editor.id)") { [repository] send in
                    _ = try await repository.edit(id: editor.id, text: editor.text)
                    await send(.editSaved(id: editor.id, text: editor.text))
                } catch: { error, send in
                    if let message = TodoList.message(for: error) { await send(.failed(message)) }
                }
                .cancellable(id: EditSave(id: editor.id), cancelInFlight: true)

            case let .editSaved(id, text):
                // Text typed while the save ran stays, to be saved again.
                if state.editor?.id == id, state.editor?.text == text { state.editor = nil }
                return .none

            case .editor:
                return .none

            case .deletion(.presented(.confirmTapped)):
                guard let id = state.deletion?.id else { return .none }
                state.deletion = nil
                state.errorMessage = nil
                // The row below takes the selection, as lists do.
                state.selection.removing(id, from: state.todos.value)
                return .run(name: "delete to-do #\(id)") { [repository] _ in
                    try await repository.delete(id: id)
                } catch: { error, send in
                    if let message = TodoList.message(for: error) { await send(.failed(message)) }
                }

            case .deletion(.dismiss):
                return .none
            }
        }
        .presenting(\.editor, action: \.editor) { TodoEditor() }
        .presenting(\.deletion, action: \.deletion) { TodoDeletion() }
        .fetching(\.todos, action: \.todos, query: \.search) { [repository] search in
            repository.live(matching: search)
        }
    }

    /// The message a refused change (or, `reading`, a failed read) shows;
    /// `nil` for a cancellation.
    nonisolated static func message(for error: any Error, reading: Bool = false) -> String? {
        switch error {
        case let error as TodoError: error.description
        case is CancellationError: nil
        default:
            ErrorMessage.line(reading ? "The to-do list could not be read" : "The to-do list could not be saved", error)
        }
    }
}
