import BaselineStore
import Testing

/// A reference type an effect makes and hands to the store: not `Sendable`.
final class Draft {
    var text: String

    init(text: String) {
        self.text = text
    }
}

/// A feature whose actions carry a `Draft`, so they are not `Sendable`.
@CasePathable
enum DraftAction {
    case load
    case loaded(Draft)
    case child(CounterFeature.Action)
}

struct DraftFeature: Reducer {
    struct State: Equatable {
        var text = ""
        var counter = CounterFeature.State()
    }

    var body: some Reducer<State, DraftAction> {
        Scope(state: \.counter, action: \.child) { CounterFeature(fetchFact: { "\($0) is a fact" }) }
        Reduce { state, action in
            switch action {
            case .load:
                // Made in the effect and sent to the main actor, where nothing
                // else holds it: Swift lets it cross without being Sendable.
                return .run { send in await send(.loaded(Draft(text: "from the effect"))) }
            case let .loaded(draft):
                state.text = draft.text
                return .none
            case .child:
                return .none
            }
        }
    }
}

@MainActor
@Suite("Actions that are not Sendable", .timeLimit(.minutes(1)))
struct NonSendableActionTests {
    @Test func anEffectSendsAnActionThatIsNotSendable() async {
        let store = Store(initialState: DraftFeature.State()) { DraftFeature() }
        await store.send(.load).finish()
        #expect(store.state.text == "from the effect")
    }

    @Test func aChildsEffectReachesTheParentThroughItsCase() async {
        let store = Store(initialState: DraftFeature.State()) { DraftFeature() }
        store.send(.child(.increment))
        await store.send(.child(.refresh)).finish()
        #expect(store.state.counter.fact == "1 is a fact")
    }
}
