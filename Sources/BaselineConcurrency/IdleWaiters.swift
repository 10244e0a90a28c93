/// Tasks waiting for something to become idle — a count of transfers or
/// observations dropping to zero — for leak checks that must not hang.
///
/// The owner calls ``resumeAll()`` whenever it becomes idle. A waiter
/// registers before it checks, so a change in between cannot be missed, and
/// cancelling a waiter ends its wait with `CancellationError`.
package final class IdleWaiters: Sendable {
    private struct State {
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
        /// Waiters cancelled before their continuation was registered.
        var cancelled: Set<Int> = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// Returns once `isIdle()` holds, checking it now and again after each
    /// ``resumeAll()``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    package func wait(until isIdle: () -> Bool) async throws {
        while !isIdle() {
            try Task.checkCancellation()
            try await waitForSignal(orIdle: isIdle)
        }
    }

    /// Wakes every waiter: call it when the owner has become idle.
    package func resumeAll() {
        let waiters = state.withLock { state in
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitForSignal(orIdle isIdle: () -> Bool) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        defer { state.withLock { _ = $0.cancelled.remove(id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if cancelledAlready {
                    continuation.resume(throwing: CancellationError())
                } else if isIdle() {
                    // Idle before this waiter was registered: no signal will come.
                    state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiting.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
