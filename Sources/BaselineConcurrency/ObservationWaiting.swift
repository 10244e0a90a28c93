import Observation

/// Suspends until `condition` holds for `model`, re-checking it each time an
/// observable property it reads changes — an event, not a polling loop.
///
/// For state that changes because of work you do not await directly (a
/// database observation, a stream an effect consumes) — in tests, and in
/// command-line tools that drive a view model:
///
/// ```swift
/// try await database.write { db in try Todo(text: "From elsewhere").insert(db) }
/// await waitUntil(model) { $0.todos.count == 1 }
/// ```
///
/// In tests, pair it with a time limit (`.timeLimit(.minutes(1))`) so that a
/// change that never comes fails the test instead of hanging it.
@MainActor
public func waitUntil<Model: AnyObject>(_ model: Model, _ condition: @MainActor (Model) -> Bool) async {
    while !condition(model) {
        await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
            // `onChange` may fire after we already resumed (the condition held
            // at once): resume exactly once.
            let resumed = LockedValue(false)
            let resumeOnce: @Sendable () -> Void = {
                if resumed.withLock({ done in defer { done = true }; return !done }) { changed.resume() }
            }
            // Read inside the tracking closure, so every property the condition
            // depends on is tracked; `onChange` fires once, before the change.
            let satisfied = withObservationTracking {
                condition(model)
            } onChange: {
                resumeOnce()
            }
            if satisfied { resumeOnce() }
        }
    }
}
