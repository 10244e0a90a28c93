// State shared between synchronous callbacks and async code.

// snippet.hide
import BaselineConcurrency
import Foundation

// snippet.show
// snippet.counter
/// Counts bytes as a delegate callback reports them, and lets async code read the total.
final class ByteCounter: Sendable {
    private let total = LockedValue(0)

    /// Called from a delegate queue: synchronous, so it cannot await an actor.
    func didReceive(_ data: Data) {
        total.withLock { $0 += data.count }
    }

    var bytesReceived: Int { total.current }
}
// snippet.end

// snippet.compound
/// Hands out each waiter once, whichever thread asks first.
final class Waiters: Sendable {
    private let waiting = LockedValue<[CheckedContinuation<Void, Never>]>([])

    func add(_ waiter: CheckedContinuation<Void, Never>) {
        waiting.withLock { $0.append(waiter) }
    }

    func resumeAll() {
        // Take the waiters out under the lock, resume them outside it: a
        // resumed task may call back into this object straight away.
        let waiters = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        for waiter in waiters { waiter.resume() }
    }
}
// snippet.end

// snippet.hide
let counter = ByteCounter()
counter.didReceive(Data([1, 2, 3]))
_ = counter.bytesReceived
Waiters().resumeAll()
