import BaselineStore

/// A counter whose fact comes from a controllable source.
struct CounterFeature: Reducer {
    struct State: Equatable, Identifiable, Sendable {
        var id = 0
        var count = 0
        var fact: String?
        var isLoading = false
    }

    enum Action: Equatable, Sendable {
        case increment
        case decrement
        case refresh
        case cancel
        case factResponse(String)
        case twice
    }

    enum CancelID { case fact }

    let fetchFact: @Sendable (Int) async throws -> String

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            return .none
        case .decrement:
            state.count -= 1
            return .none
        case .refresh:
            state.isLoading = true
            return .run(name: "fetch fact") { [count = state.count, fetchFact] send in
                await send(.factResponse(try await fetchFact(count)))
            }
            .cancellable(id: CancelID.fact, cancelInFlight: true)
        case .cancel:
            state.isLoading = false
            return .cancel(id: CancelID.fact)
        case let .factResponse(fact):
            state.isLoading = false
            state.fact = fact
            return .none
        case .twice:
            return .concatenate(.send(.increment), .send(.increment))
        }
    }
}

/// A parent embedding a counter, an optional counter and a list of counters.
struct ParentFeature: Reducer {
    struct State: Equatable, Sendable {
        var main = CounterFeature.State()
        var sheet: CounterFeature.State?
        var rows: [CounterFeature.State] = []
    }

    @CasePathable
    enum Action: Equatable, Sendable {
        case main(CounterFeature.Action)
        case sheet(CounterFeature.Action)
        case rows(IdentifiedAction<Int, CounterFeature.Action>)
        case openSheet
        case closeSheet
    }

    let fetchFact: @Sendable (Int) async throws -> String

    var body: some Reducer<State, Action> {
        Scope(state: \.main, action: \.main) { CounterFeature(fetchFact: fetchFact) }
        IfLet(state: \.sheet, action: \.sheet) { CounterFeature(fetchFact: fetchFact) }
        ForEachReducer(state: \.rows, action: \.rows) { CounterFeature(fetchFact: fetchFact) }
        Reduce { state, action in
            switch action {
            case .openSheet: state.sheet = CounterFeature.State()
            case .closeSheet: state.sheet = nil
            default: break
            }
            return .none
        }
    }
}
