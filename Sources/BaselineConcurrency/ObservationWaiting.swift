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
/// try await waitUntil(model) { $0.todos.count == 1 }
/// ```
///
/// When the condition already holds it returns at once, without suspending.
/// Cancelling the waiting task ends the wait with `CancellationError`, so in
/// tests a time limit (`.timeLimit(.minutes(1))`) turns a change that never
/// comes into a failure instead of a hang.
///
/// - Throws: `CancellationError` when the task is cancelled before the
///   condition holds.
@MainActor
public func waitUntil<Model: AnyObject>(_ model: Model, _ condition: @MainActor (Model) -> Bool) async throws {
    while !condition(model) {
        try Task.checkCancellation()
        let wake = Wake()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                wake.arm(continuation)
                // Read inside the tracking closure, so every property the
                // condition depends on is tracked; `onChange` fires once,
                // before the change.
                let satisfied = withObservationTracking {
                    condition(model)
                } onChange: {
                    wake.fire()
                }
                if satisfied { wake.fire() }
            }
        } onCancel: {
            wake.fire()
        }
    }
}

/// One wake-up for one suspension of ``waitUntil(_:_:)``: the change, the
/// condition already holding, or cancellation, whichever comes first, resumes
/// the continuation exactly once — including a cancellation that arrives
/// before the continuation exists.
private final class Wake: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = LockedValue(State.idle)

    func arm(_ continuation: CheckedContinuation<Void, Never>) {
        let firedAlready = state.withLock { state in
            if case .fired = state { return true }
            state = .waiting(continuation)
            return false
        }
        if firedAlready { continuation.resume() }
    }

    func fire() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .fired }
            if case let .waiting(continuation) = state { return continuation }
            return nil
        }
        continuation?.resume()
    }
}
