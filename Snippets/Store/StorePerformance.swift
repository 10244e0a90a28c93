// The store's usual performance pitfalls, each as the slow version and the
// fixed one.

// snippet.hide
import BaselineStore
import Foundation

struct Row: Equatable, Identifiable, Sendable {
    let id: Int
    var title: String
}

// snippet.show
struct Downloads: Reducer {
    struct State: Equatable {
        var rows: [Row] = []
        var filter = ""
        var visibleRows: [Row] = []
        var receivedBytes = 0
        var expectedBytes = 1
    }

    enum Action: Equatable, Sendable {
        case filterChanged(String)
        case rowsLoaded([Row])
        case start
        case progressed(received: Int)
    }

    let chunks: @Sendable () -> AsyncStream<Int>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        // snippet.derived
        case let .filterChanged(filter):
            state.filter = filter
            // Derived once per change, here, rather than in every view body
            // that reads it.
            state.visibleRows =
                filter.isEmpty
                ? state.rows
                : state.rows.filter { $0.title.localizedCaseInsensitiveContains(filter) }
            return .none
        // snippet.end

        // snippet.nonrun
        case let .rowsLoaded(rows):
            state.rows = rows
            // Not `.run { send in await send(.filterChanged(filter)) }`: that
            // costs two hops between actors for work that needs none.
            return .send(.filterChanged(state.filter))
        // snippet.end

        // snippet.throttle
        case .start:
            return .run { [chunks] send in
                var received = 0
                var lastSent = ContinuousClock.now
                for await chunk in chunks() {
                    received += chunk
                    // One action per chunk would be thousands a second; a
                    // screen shows at most one frame every 16 ms.
                    if ContinuousClock.now - lastSent >= .milliseconds(16) {
                        lastSent = .now
                        await send(.progressed(received: received))
                    }
                }
                await send(.progressed(received: received))
            }
        // snippet.end

        case let .progressed(received):
            state.receivedBytes = received
            return .none
        }
    }
}

// snippet.hide
let store = Store(initialState: Downloads.State()) { Downloads(chunks: { AsyncStream { $0.finish() } }) }
// snippet.show
// snippet.narrow
// Compares the whole array on every send, whatever the action changed:
let everyRow = store.values(of: \.visibleRows)
// Compares one integer: observe what the reader needs.
let rowCount = store.values(of: \.visibleRows.count)
// snippet.end
_ = (everyRow, rowCount)
