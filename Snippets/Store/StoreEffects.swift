// A search field that waits for a pause in typing, and a timer that runs
// until it is stopped: the two shapes most effects take.

// snippet.hide
import BaselineStore
import Foundation

// snippet.show
struct BookSearch: Reducer {
    struct State: Equatable {
        var query = ""
        var results: [String] = []
        var isSearching = false
        var secondsOnScreen = 0
    }

    enum Action: Equatable, Sendable {
        case queryChanged(String)
        case resultsLoaded([String])
        case searchFailed
        case appeared
        case disappeared
        case timerTicked
    }

    enum CancelID { case search, timer }

    // Dependencies as values, so a test can pass its own.
    let search: @Sendable (String) async throws -> [String]
    let clock: any Clock<Duration>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        // snippet.debounce
        case let .queryChanged(query):
            state.query = query
            guard !query.isEmpty else {
                state.results = []
                state.isSearching = false
                return .cancel(id: CancelID.search)
            }
            state.isSearching = true
            return .run { [search] send in
                await send(.resultsLoaded(try await search(query)))
            } catch: { _, send in
                await send(.searchFailed)
            }
            // Each keystroke cancels the previous search, waiting or running:
            // only a pause of 300 ms reaches the network.
            .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
        // snippet.end

        case let .resultsLoaded(results):
            state.isSearching = false
            state.results = results
            return .none

        case .searchFailed:
            state.isSearching = false
            return .none

        // snippet.timer
        case .appeared:
            return .run(name: "screen timer") { [clock] send in
                // Runs until cancelled: `sleep` throws CancellationError then,
                // which ends the effect quietly.
                while true {
                    try await clock.sleep(for: .seconds(1))
                    await send(.timerTicked)
                }
            }
            .cancellable(id: CancelID.timer)

        case .disappeared:
            return .merge(.cancel(id: CancelID.timer), .cancel(id: CancelID.search))
        // snippet.end

        case .timerTicked:
            state.secondsOnScreen += 1
            return .none
        }
    }
}

// snippet.hide
let catalog = ["Dune", "Emma", "Ulysses"]
// snippet.show
// snippet.tasks
let store = Store(initialState: BookSearch.State()) {
    BookSearch(
        search: { query in catalog.filter { $0.localizedCaseInsensitiveContains(query) } },
        clock: ContinuousClock()
    )
}

// `send` returns a StoreTask standing for the work the action started.
let typing = store.send(.queryChanged("du"))
await typing.finish()  // the debounce, then the search
print(store.results)  // ["Dune"]

// Cancelling the task cancels that work, and nothing else.
let timer = store.send(.appeared)
timer.cancel()

// Or send, and wait while a condition holds: the shape of pull-to-refresh.
await store.send(.queryChanged("emma"), while: \.isSearching)
// snippet.end
