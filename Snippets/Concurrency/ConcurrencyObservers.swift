// A long-lived observation owned by a view model, and waiting for a model to change.

// snippet.hide
import BaselineConcurrency
import Foundation
import Observation

struct Todo: Sendable, Equatable {
    var text: String
}

/// Where to-dos come from: a database observation in the app.
protocol TodoRepository: Sendable {
    func observeAll() -> AsyncStream<[Todo]>
}

// snippet.show
// snippet.owner
@MainActor
@Observable
final class TodoListViewModel {
    private(set) var todos: [Todo] = []
    private(set) var failure: String?
    // The view model owns the observer: when it goes, the observation goes.
    @ObservationIgnored private var observer: StreamObserver?

    init(repository: some TodoRepository) {
        observer = StreamObserver(
            observing: { repository.observeAll() },
            // Weak: the task must not keep its owner alive.
            onElement: { [weak self] todos in await self?.show(todos) },
            onError: { [weak self] error in await self?.fail(error) }
        )
        observer?.start()
    }

    private func show(_ todos: [Todo]) {
        self.todos = todos
    }

    private func fail(_ error: any Error) {
        failure = "\(error)"
    }

    /// Stops observing, and returns once the last update has been shown.
    func pause() async {
        await observer?.stop()
    }

    func resume() {
        observer?.start()
    }
}
// snippet.end

// snippet.wait
/// A repository a test feeds by hand.
struct FeedRepository: TodoRepository {
    let stream: AsyncStream<[Todo]>
    func observeAll() -> AsyncStream<[Todo]> { stream }
}

let (stream, feed) = AsyncStream.makeStream(of: [Todo].self)
let model = TodoListViewModel(repository: FeedRepository(stream: stream))
feed.yield([Todo(text: "Buy film")])
// Suspends until the observer has shown the change: no sleeping, no polling.
try await waitUntil(model) { $0.todos.count == 1 }
// snippet.end
