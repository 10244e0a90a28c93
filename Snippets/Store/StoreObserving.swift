// A download whose progress a command-line front end prints: observing a
// store with no SwiftUI anywhere.

// snippet.hide
import BaselineConcurrency
import BaselineStore
import Foundation
import Observation

// snippet.show
// snippet.feature
struct Download: Reducer {
    struct State: Equatable {
        var percent = 0
        var isFinished = false
    }

    enum Action: Equatable, Sendable {
        case start
        case progressed(Int)
        case finished
    }

    /// Reports progress, in percent, as the bytes arrive.
    let transfer: @Sendable () -> AsyncStream<Int>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            return .run { [transfer] send in
                for await percent in transfer() { await send(.progressed(percent)) }
                await send(.finished)
            }
        case let .progressed(percent):
            state.percent = percent
            return .none
        case .finished:
            state.isFinished = true
            return .none
        }
    }
}
// snippet.end

// snippet.hide
let store = Store(initialState: Download.State()) {
    Download(transfer: {
        AsyncStream { continuation in
            for percent in stride(from: 0, through: 100, by: 25) { continuation.yield(percent) }
            continuation.finish()
        }
    })
}

// snippet.show
// snippet.values
// The value now, then each change. A slow reader skips to the newest value.
let printer = Task {
    for await percent in store.values(of: \.percent) {
        print("\(percent) %")
    }
}
// snippet.end

// snippet.observer
/// A front end that lives as long as its owner keeps it, and stops
/// observing when it is released.
@MainActor
final class ProgressBar {
    private var observer: StreamObserver?

    init(store: Store<Download.State, Download.Action>) {
        let percents = store.values(of: \.percent)
        observer = StreamObserver(observing: { percents }) { percent in
            print(String(repeating: "#", count: percent / 5))
        }
        observer?.start()
    }
}
let bar = ProgressBar(store: store)
// snippet.end

// snippet.tracking
// Observation itself: `onChange` fires once, before the next change, so the
// render function tracks again each time it runs.
@MainActor
func render() {
    withObservationTracking {
        print(store.isFinished ? "Done" : "Downloading…")
    } onChange: {
        Task { @MainActor in render() }
    }
}
render()
// snippet.end

// snippet.wait
store.send(.start)
// Suspends until the condition holds, re-checking on each change; no polling.
try await waitUntil(store) { $0.isFinished }
printer.cancel()
// snippet.end
_ = bar
