// snippet.hide
import BaselineStore
import BaselineTesting
import Testing

struct Counter: Reducer {
    struct State: Equatable {
        var count = 0
        var fact: String?
        var isLoading = false
    }

    enum Action: Equatable, Sendable {
        case factButtonTapped
        case factLoaded(String)
    }

    let fetchFact: @Sendable (Int) async throws -> String

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .factButtonTapped:
            state.isLoading = true
            return .run { [count = state.count, fetchFact] send in
                await send(.factLoaded(try await fetchFact(count)))
            }
        case let .factLoaded(fact):
            state.isLoading = false
            state.fact = fact
            return .none
        }
    }
}

// snippet.show
@MainActor
@Test(.timeLimit(.minutes(1)))
func loadingAFact() async throws {
    // 1. A double whose calls wait until the test ends them.
    let fetchFact = ControllableCall<Int, String>()
    let store = TestStore(initialState: Counter.State()) {
        Counter(fetchFact: { try await fetchFact($0) })
    }

    // 2. Every state change is asserted.
    await store.send(.factButtonTapped) { $0.isLoading = true }

    // 3. The call is in flight: the test decides how it ends, and when.
    try await fetchFact.nextCall().resume(returning: "0 is even.")

    // 4. The action the effect sends back, and the state it leaves.
    await store.receive(.factLoaded("0 is even.")) {
        $0.isLoading = false
        $0.fact = "0 is even."
    }
    await store.finish()
}
