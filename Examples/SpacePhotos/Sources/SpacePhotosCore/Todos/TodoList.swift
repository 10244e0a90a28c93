import BaselineStore
import Foundation

/// The to-do list as a feature: the list, the selection, the new
/// item's text, the item edited in place (a presented ``TodoEditor``), and
/// the deletion waiting for confirmation (a presented ``TodoDeletion``).
///
/// ```swift
/// List(store.todos, selection: Binding(store.binding(\.selectedID))) { Text($0.text) }
/// TextField("New to-do", text: Binding(store.binding(\.draft)))
///     .onSubmit { store.send(.submitDraft) }
/// .task { await store.send(.observe).finish() }
/// ```
///
/// - The list comes from the database's observation (``Action/observe``),
///   not from the actions: add an item here, or from any other actor or
///   screen, and ``State/todos`` follows once the write commits. Each
///   `.observe` lasts while the task that sent it waits on it (cancelling
///   that task ends it), or until the store goes; two senders each get one,
///   so one ending leaves the other running. A failed read ends it, with
///   ``State/errorMessage`` set.
/// - Typed text is never lost: the draft and the editor's text are cleared
///   only when the save of that very text succeeded; a refused or failed
///   save leaves them as they were, with ``State/errorMessage`` set.
/// - The writes are the list's: an edit's save runs on after its editor is
///   dismissed, and a newer save of the same item cancels an older one still
///   running, so the last text typed is the one stored.
/// - The repository is passed to the initialiser: the plain style for a
///   client only this feature uses (``SessionClient`` shows the other).
public struct TodoList: Reducer {
    /// What the to-do screen shows.
    public struct State: Equatable, Sendable {
        /// Every item, oldest first.
        public var todos: [Todo]
        /// Whether the first result has arrived.
        public var isLoaded: Bool
        /// The selected item (bound); ``selectedTodo`` is nil while it is not listed.
        public var selection: ListSelection<Int64>
        /// What to tell the user about the last refused action; `nil` otherwise.
        public var errorMessage: String?
        /// The text of the item about to be added, bound.
        public var draft: String
        /// The item edited in place, while one is.
        public var editor: TodoEditor.State?
        /// The deletion waiting for the user's confirmation, while one is.
        public var deletion: TodoDeletion.State?

        /// An empty list, not loaded yet.
        public init(
            todos: [Todo] = [],
            isLoaded: Bool = false,
            selectedID: Int64? = nil,
            errorMessage: String? = nil,
            draft: String = "",
            editor: TodoEditor.State? = nil,
            deletion: TodoDeletion.State? = nil
        ) {
            self.todos = todos
            self.isLoaded = isLoaded
            self.selection = ListSelection(selectedID)
            self.errorMessage = errorMessage
            self.draft = draft
            self.editor = editor
            self.deletion = deletion
        }

        /// The selected item, if it is listed.
        public var selectedTodo: Todo? {
            selectedIndex.map { todos[$0] }
        }

        /// The selected item's position in ``todos``.
        public var selectedIndex: Int? {
            selection.index(in: todos)
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
        /// A bound field changed: the draft or the selection (other fields
        /// change through their own actions).
        case binding(BindingAction<State>)
        /// Observes the list; the effect lasts until cancelled or a read fails.
        case observe
        /// The database's list now.
        case todosChanged([Todo])
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
    }

    let repository: TodoRepository

    /// A list over `repository`.
    public init(repository: TodoRepository) {
        self.repository = repository
    }

    /// The save of one item: a newer one cancels an older one still running.
    struct EditSave: Hashable, Sendable { let id: Int64 }

    /// The bindings, the list's own logic, and the presented editor and confirmation.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            switch action {
            case .binding:
                return .none

            case .observe:
                return .run(name: "observe the to-dos") { [repository] send in
                    for try await todos in repository.observeAll() {
                        await send(.todosChanged(todos))
                    }
                } catch: { error, send in
                    if let message = TodoList.message(for: error, reading: true) { await send(.failed(message)) }
                }

            case let .todosChanged(todos):
                state.todos = todos
                state.isLoaded = true
                // The selection is kept even when this list lacks it: an item
                // just added is selected before the list that holds it arrives
                // (ids are never reused, so a deleted item's id selects nothing).
                if let editing = state.editor?.id, !todos.contains(where: { $0.id == editing }) {
                    // Deleted elsewhere while edited: nothing left to save into.
                    state.editor = nil
                }
                return .none

            case let .moveSelection(offset):
                let todos = state.todos
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
                guard let todo = state.todos.first(where: { $0.id == id }) else { return .none }
                state.selectedID = id
                state.editor = TodoEditor.State(id: id, text: todo.text)
                state.errorMessage = nil
                return .none

            case let .deleteTapped(id):
                guard let todo = state.todos.first(where: { $0.id == id }) else { return .none }
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
                state.selection.removing(id, from: state.todos)
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
