import BaselineStore

/// One to-do edited in place: its text, bound, and the save.
///
/// Presented by ``TodoList`` (``TodoList/State/editor``), which closes it
/// once the save of the text on screen succeeds; Esc dismisses it unsaved.
/// A refused or failed save leaves it open with the text as typed.
public struct TodoEditor: Reducer {
    /// The item being edited.
    public struct State: Equatable, Sendable, Identifiable {
        /// The item's id.
        public var id: Int64
        /// The text as typed.
        public var text: String

        /// Editing item `id`, starting from `text`.
        public init(id: Int64, text: String) {
            self.id = id
            self.text = text
        }
    }

    /// What the editor can do.
    public enum Action: BindableAction, Equatable, Sendable {
        /// The text changed.
        case binding(BindingAction<State>)
        /// Saves the text.
        case saveTapped
        /// `text` was saved.
        case saved(text: String)
        /// The save was refused or failed; the message says why.
        case saveFailed(String)

        /// The binding action this action carries, if it is one.
        public var binding: BindingAction<State>? {
            if case let .binding(action) = self { action } else { nil }
        }
    }

    let repository: TodoRepository

    /// An editor saving through `repository`.
    public init(repository: TodoRepository) {
        self.repository = repository
    }

    /// Applies the text's binding and starts the save; its outcome is the
    /// list's to act on.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .binding:
            return BindingReducer().reduce(into: &state, action: action)
        case .saveTapped:
            return .run(name: "save to-do #\(state.id)") { [id = state.id, text = state.text, repository] send in
                _ = try await repository.edit(id: id, text: text)
                await send(.saved(text: text))
            } catch: { error, send in
                if let message = TodoList.message(for: error) { await send(.saveFailed(message)) }
            }
        case .saved, .saveFailed:
            return .none
        }
    }
}
