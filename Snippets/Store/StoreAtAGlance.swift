// snippet.hide
import BaselineStore

// snippet.show
// 1. State, and the actions that change it.
struct Counter: Reducer {
    struct State: Equatable {
        var count = 0
        var fact: String?
    }

    enum Action: Equatable, Sendable {
        case increment, factButtonTapped
        case factLoaded(String)
    }

    // 2. Dependencies as plain values: the app passes real ones, tests their own.
    let fetchFact: @Sendable (Int) async throws -> String

    // 3. The reducer changes state at once and describes the slow work.
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            return .none
        case .factButtonTapped:
            return .run { [count = state.count, fetchFact] send in
                await send(.factLoaded(try await fetchFact(count)))
            }
        case let .factLoaded(fact):
            state.fact = fact
            return .none
        }
    }
}

// 4. The store runs both, on the main actor; effects run off it.
let store = Store(initialState: Counter.State()) {
    Counter(fetchFact: { "\($0) is a number." })
}
store.send(.increment)
await store.send(.factButtonTapped).finish()
print(store.count, store.fact ?? "")  // 1 1 is a number.
