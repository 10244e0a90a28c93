import Foundation

/// A value protected by a lock, for state shared between synchronous callbacks
/// and async code where an actor hop is not possible (inside a continuation's
/// resume path, a cancellation handler or a `deinit`).
///
/// `Synchronization.Mutex` would be the natural choice, but it needs macOS 15 /
/// iOS 18 and Baseline supports macOS 14 / iOS 17. Keep critical sections short;
/// the closure is synchronous, so it cannot `await` while holding the lock.
///
/// ```swift
/// let hits = LockedValue(0)
/// hits.withLock { $0 += 1 }
/// ```
public final class LockedValue<Value: Sendable>: @unchecked Sendable {  // safety: every access holds `lock`
    // `value` is only read or written inside `withLock`, which holds
    // `lock` for the whole access, so no two threads touch it at once; `Value`
    // is `Sendable`, so what leaves the lock may cross isolation domains.
    private let lock = NSLock()
    private var value: Value

    /// Creates a box holding `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @discardableResult
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value {
        withLock { $0 }
    }
}
