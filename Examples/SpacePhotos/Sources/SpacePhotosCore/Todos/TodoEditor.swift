import BaselineStore

/// One to-do edited in place: its text, bound, and the save button.
///
/// Presented by ``TodoList`` (``TodoList/State/editor``), which saves on
/// ``Action/saveTapped`` and closes it once the text on screen is saved; a
/// refused or failed save leaves it open with the text as typed. The save
/// is the list's, not the editor's: dismissing the editor (Esc) while a save
/// runs does not undo the save.
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
    @CasePathable
    public enum Action: BindableAction, Equatable, Sendable {
        /// The text changed.
        case binding(BindingAction<State>)
        /// Saves the text (the list does).
        case saveTapped
    }

    /// An editor.
    public init() {}

    /// Applies the text's binding; the save is the list's to run.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
    }
}
