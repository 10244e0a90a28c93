// A basket of items, each with its own quantity feature, and an optional
// note editor shown as a sheet: one parent, three ways to hold a child.

// snippet.hide
import BaselineStore
import Foundation

// snippet.show
// snippet.child
/// One line of the basket: a child feature that knows nothing of its parent.
struct Quantity: Reducer {
    struct State: Equatable, Identifiable, Sendable {
        let id: String  // the product code
        var count = 1
    }

    enum Action: Equatable, Sendable { case increment, decrement }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment: state.count += 1
        case .decrement: state.count = max(0, state.count - 1)
        }
        return .none
    }
}

/// A note attached to the order, edited in a sheet.
struct NoteEditor: Reducer {
    struct State: Equatable, Sendable { var text = "" }
    enum Action: Equatable, Sendable { case textChanged(String) }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case let .textChanged(text): state.text = text
        }
        return .none
    }
}
// snippet.end

// snippet.parent
struct Basket: Reducer {
    struct State: Equatable {
        var items: [Quantity.State] = []
        var giftMessage = NoteEditor.State()  // always there
        var note: NoteEditor.State?  // nil while the sheet is closed
        var total = 0
    }

    @CasePathable
    enum Action: Equatable, Sendable {
        case items(IdentifiedAction<String, Quantity.Action>)
        case giftMessage(NoteEditor.Action)
        case note(NoteEditor.Action)
        case editNote
        case closeNote
    }

    // One key path per child: where its state lives, and which case carries its actions.
    var body: some Reducer<State, Action> {
        Scope(state: \.giftMessage, action: \.giftMessage) { NoteEditor() }
        ForEachReducer(state: \.items, action: \.items) { Quantity() }
        IfLet(state: \.note, action: \.note) { NoteEditor() }
        // The parent's own logic runs after the children's, so it sees
        // their changes: here, to keep the total in step.
        Reduce { state, action in
            switch action {
            case .editNote:
                state.note = state.note ?? NoteEditor.State()
            case .closeNote:
                state.note = nil
            case .items, .note, .giftMessage:
                break
            }
            state.total = state.items.reduce(0) { $0 + $1.count }
            return .none
        }
    }
}
// snippet.end

// snippet.scoping
let store = Store(initialState: Basket.State(items: [.init(id: "tea"), .init(id: "milk")])) { Basket() }

// One store per row, each seeing only its own item.
let rows = store.scope(forEach: \.items, action: \.items)
rows[0].send(.increment)
print(store.total)  // 3

// A child that is always there.
let gift = store.scope(state: \.giftMessage, action: \.giftMessage)
gift.send(.textChanged("Happy birthday"))

// A store for the sheet exists only while its state does.
store.send(.editNote)
if let note = store.scope(state: \.note, action: \.note) {
    note.send(.textChanged("Ring twice"))
}
store.send(.closeNote)
print(store.scope(state: \.note, action: \.note) == nil)  // true
// snippet.end
