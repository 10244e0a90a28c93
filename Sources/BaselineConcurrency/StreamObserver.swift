/// Consumes an async sequence in a task whose lifetime belongs to an owner.
///
/// "Why is this object alive, and when does it stop?" is answered by the
/// type: the observer runs
/// from ``start()`` until ``stop()``, and when its owner releases it, it stops
/// (its task is cancelled, which ends the iteration and releases the
/// sequence). Nothing keeps it alive behind the owner's back: the task holds
/// the sequence and the handler, not the observer.
///
/// ```swift
/// @MainActor @Observable final class TodoListViewModel {
///     private(set) var todos: [Todo] = []
///     @ObservationIgnored private var observer: StreamObserver?
///
///     init(database: SQLiteDatabase) {
///         observer = StreamObserver(observing: { database.observe(Todo.fetchAll) }) { [weak self] todos in
///             await self?.show(todos)
///         }
///         observer?.start()
///     }
/// }
/// // Releasing the view model releases the observer, which stops observing.
/// ```
///
/// Hold the owner weakly in the handler (`[weak self]`), or the task keeps
/// the owner alive and the owner keeps the task: a cycle that outlives
/// every screen.
public final class StreamObserver: Sendable {
    private let body: @Sendable () async -> Void
    private let task = LockedValue<Task<Void, Never>?>(nil)

    /// An observer that, once started, iterates the sequence `makeSequence`
    /// returns and hands each element to `onElement`. An error ending the
    /// sequence goes to `onError` (cancellation does not: it is how it stops).
    ///
    /// `makeSequence` runs again at each ``start()``, so an observer can be
    /// stopped and started again. It runs on the actor it was written on (a
    /// view model's main actor, say), so it may call that actor's methods
    /// without `await`; the elements are then read off that actor.
    public init<S: AsyncSequence>(
        // Inherits the caller's isolation, as `Task { }` does: in an app
        // whose code is main-actor isolated by default, the repository or SDK
        // the closure calls is too, and a nonisolated closure could not call it.
        @_inheritActorContext observing makeSequence: @escaping @Sendable @isolated(any) () -> S,
        onElement: @escaping @Sendable (S.Element) async -> Void,
        onError: @escaping @Sendable (any Error) async -> Void = { _ in }
    ) where S: Sendable, S.Element: Sendable {
        body = {
            do {
                for try await element in await makeSequence() {
                    await onElement(element)
                }
            } catch is CancellationError {
                return
            } catch {
                if !Task.isCancelled { await onError(error) }
            }
        }
    }

    deinit {
        task.current?.cancel()
    }

    /// Whether the observer has been started and not stopped. (It stays true
    /// after the sequence ends on its own, until ``stop()``.)
    public var isStarted: Bool { task.current != nil }

    /// Starts observing; does nothing when already started.
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task(operation: body)
        }
    }

    /// Stops observing, and returns once the handler has finished its last
    /// element: after `stop()` returns, no more elements are handled.
    public func stop() async {
        let running = task.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
