import BaselineConcurrency

/// Why the engine should run a sync cycle.
struct WakeReasons: OptionSet, Sendable {
    let rawValue: Int
    /// A local write put changes in the outbox.
    static let local = WakeReasons(rawValue: 1)
    /// The server said it has something new, or its channel came (back) up.
    static let remote = WakeReasons(rawValue: 2)
    /// Someone asked (``SyncEngine/syncNow()``).
    static let asked = WakeReasons(rawValue: 4)
}

/// A signal the engine's loop waits on: reasons pile up while nobody
/// waits, and a wait returns at once when one it accepts is pending.
final class Wakeup: Sendable {
    private struct Waiter {
        var id: UInt64
        var accepts: WakeReasons
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var pending: WakeReasons = []
        var waiter: Waiter?
        var nextID: UInt64 = 0
    }

    private let state = LockedValue(State())

    /// Adds `reasons`; wakes the waiter if it accepts one of them.
    func signal(_ reasons: WakeReasons) {
        let woken: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.pending.formUnion(reasons)
            guard let waiter = state.waiter, !waiter.accepts.isDisjoint(with: state.pending) else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        woken?.resume()
    }

    /// Waits until one of `accepts` is pending (then clears all pending
    /// reasons) or the task is cancelled.
    func wait(for accepts: WakeReasons) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if !accepts.isDisjoint(with: state.pending) || Task.isCancelled { return true }
                    state.waiter = Waiter(id: id, accepts: accepts, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
        state.withLock { $0.pending = [] }
    }

    /// Waits as ``wait(for:)`` does, or until `delay` has passed on `clock`.
    func wait(for accepts: WakeReasons, upTo delay: Duration, on clock: any Clock<Duration>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait(for: accepts) }
            group.addTask { try? await clock.sleep(for: delay) }
            await group.next()
            group.cancelAll()
        }
    }
}
