import BaselineStore

/// The question before a to-do is deleted: confirm, or dismiss to keep it.
///
/// Presented by ``TodoList`` (``TodoList/State/deletion``), which deletes on
/// ``Action/confirmTapped``; dismissing it (`.deletion(.dismiss)`) keeps the item.
public struct TodoDeletion: Reducer {
    /// The item that would be deleted.
    public struct State: Equatable, Sendable, Identifiable {
        /// The item.
        public var todo: Todo
        /// The item's id.
        public var id: Int64? { todo.id }

        /// Asking about `todo`.
        public init(todo: Todo) {
            self.todo = todo
        }
    }

    /// The answer.
    public enum Action: Equatable, Sendable {
        /// Delete it.
        case confirmTapped
    }

    /// The question; the list acts on the answer.
    public init() {}

    /// Nothing of its own changes: the list deletes and closes it.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        .none
    }
}
