import Foundation

#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
///
/// Copies share one value and one lock: a `LockedValue` is a reference to
/// them, made with a single allocation (the lock lives beside the value),
/// since the HTTP client makes a few for every request.
public struct LockedValue<Value: Sendable>: @unchecked Sendable {  // safety: the value is touched only under the lock
    private let storage: LockStorage<Value>

    /// Creates a box holding `value`.
    public init(_ value: Value) {
        storage = LockStorage.make(holding: value)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @discardableResult
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        try storage.withLock(body)
    }

    /// A copy of the current value.
    public var current: Value {
        withLock { $0 }
    }
}

#if canImport(Darwin)
package typealias PlatformLock = os_unfair_lock
#else
package typealias PlatformLock = pthread_mutex_t
#endif

/// The value (the buffer's header) and its lock (its one element), in one
/// allocation: a `ManagedBuffer`'s elements have a stable address, which a
/// lock needs and a class's stored property does not promise.
///
/// Unlike ``LockedValue`` it takes values that are not `Sendable`, for the
/// package's own types that keep such state (an async iterator) and vouch
/// for its use themselves.
package final class LockStorage<Value>: ManagedBuffer<Value, PlatformLock> {
    /// A new lock holding `value`.
    package static func make(holding value: Value) -> LockStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` makes an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
            #endif
        }
        return storage
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        try withUnsafeMutablePointers { (value, lock) throws(E) -> Result in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }

    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            lock.deinitialize(count: 1)
        }
    }
}
