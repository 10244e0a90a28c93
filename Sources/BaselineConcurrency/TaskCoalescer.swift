/// Runs an operation once for any number of concurrent callers that ask for
/// the same key, and hands every one of them the result.
///
/// The first caller for a key starts the operation in a task the coalescer
/// owns; callers that arrive while it runs wait for that run instead of
/// starting their own. Once the run ends, its key is free again: a later call
/// starts afresh (the coalescer shares work in flight; it is not a cache).
///
/// Each caller waits on its own, so each can be cancelled on its own: a
/// cancelled caller throws `CancellationError` at once while the others keep
/// waiting. The shared run is cancelled only when every caller waiting for it
/// has been (unless the coalescer was made with `cancelsAbandonedWork: false`).
/// An error thrown by the operation is thrown to every caller.
///
/// The run is raised to the priority of its most urgent caller, including
/// one escalated while it waits, as awaiting a task would raise it (built
/// with Swift 6.2 or later, where the runtime supports escalation: Linux,
/// and Apple platforms from their 2025 releases; elsewhere it keeps the
/// priority of the caller that started it).
///
/// ```swift
/// let thumbnails = TaskCoalescer<URL, Image>()
/// // Ten cells asking for the same URL at once make one download.
/// let image = try await thumbnails.value(for: url) { try await download(url) }
/// ```
///
/// ### Keys in a default-MainActor module
///
/// A key is hashed wherever a caller, a cancellation or the end of a run
/// happens to be, on any thread, so its `Hashable` conformance must not be
/// isolated to an actor. In a module whose default isolation is `MainActor`
/// (Xcode 26's new app targets), a key type the module declares conforms on
/// the main actor unless it says otherwise: declare it `nonisolated`.
///
/// ```swift
/// nonisolated struct UserID: Hashable, Sendable {
///     var rawValue: String
/// }
/// ```
///
/// Without the word the compiler refuses the key ("main actor-isolated
/// conformance … cannot satisfy conformance requirement for a 'Sendable' type
/// parameter"). Keys of the standard library's and Foundation's types
/// (`String`, `URL`, `Int`) need nothing.
public final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    /// One shared run of an operation and the callers waiting for it.
    private struct Run {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    /// A test waiting for callers to gather (see ``waitUntilWaiting(atLeast:)``).
    private struct Watcher {
        let threshold: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var runs: [Key: Run] = [:]
        var nextID: UInt64 = 0
        var watchers: [UInt64: Watcher] = [:]

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        var waiterCount: Int { runs.values.reduce(0) { $0 + $1.waiters.count } }

        /// Removes and returns the watchers whose threshold is reached.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let count = waiterCount
            let ready = watchers.filter { $0.value.threshold <= count }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = LockedValue(State())
    private let cancelsAbandonedWork: Bool

    /// Creates a coalescer with nothing in flight.
    ///
    /// - Parameter cancelsAbandonedWork: Whether a run is cancelled once every
    ///   caller waiting for it has been cancelled (the default). Pass `false`
    ///   for work that must not stop half-way, such as a token refresh whose
    ///   server rotates the refresh token: the run then completes, and a caller
    ///   that arrives meanwhile joins it.
    public init(cancelsAbandonedWork: Bool = true) {
        self.cancelsAbandonedWork = cancelsAbandonedWork
    }

    /// How many keys have a run in flight.
    public var inFlightCount: Int {
        state.withLock { $0.runs.count }
    }

    /// How many callers are waiting, over every key.
    public var waiterCount: Int {
        state.withLock { $0.waiterCount }
    }

    /// How many callers are waiting for `key`.
    public func waiterCount(for key: Key) -> Int {
        state.withLock { $0.runs[key]?.waiters.count ?? 0 }
    }

    /// The value of `operation` for `key`, from a run in flight for that key
    /// if there is one, else from a new run.
    ///
    /// - Parameters:
    ///   - key: Identifies the work; callers with equal keys share a run.
    ///   - operation: The work. Only the first caller's `operation` runs; the
    ///     others' are ignored, so every operation given for a key must do the
    ///     same thing.
    /// - Returns: The value the shared run produced.
    /// - Throws: The run's error, or `CancellationError` when the calling task
    ///   is cancelled (at once, whatever the run is doing).
    public func value(for key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { $0.makeID() }
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            // A caller waits on a continuation, not on the run's task, so the
            // runtime cannot see whom it waits for: a caller escalated while
            // it waits (someone awaits it at a higher priority) passes that
            // on to the run by hand.
            return try await withTaskPriorityEscalationHandler {
                try await wait(for: key, waiterID: waiterID, operation: operation)
            } onPriorityEscalated: { [self] _, priority in
                escalateRun(for: key, waiterID: waiterID, to: priority)
            }
        }
        return try await wait(for: key, waiterID: waiterID, operation: operation)
    }

    private func wait(
        for key: Key,
        waiterID: UInt64,
        operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                join(key: key, waiterID: waiterID, continuation: continuation, operation: operation)
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    /// Suspends until at least `count` callers are waiting, over every key.
    ///
    /// For tests: it lets a test start callers and know, from an event rather
    /// than a sleep, that they have all joined before it lets the work finish.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    package func waitUntilWaiting(atLeast count: Int) async throws {
        let watcherID = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.waiterCount >= count { return .success(()) }
                    state.watchers[watcherID] = Watcher(threshold: count, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: watcherID) }
            watcher?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: Waiting

    private func join(
        key: Key,
        waiterID: UInt64,
        continuation: Waiter,
        operation: @escaping @Sendable () async throws -> Value
    ) {
        let (cancelled, watchers, run) = state.withLock {
            state -> (Bool, [CheckedContinuation<Void, any Error>], Task<Void, Never>?) in
            // Checked under the lock: a cancellation that lands after this
            // check runs `leave`, which then finds the waiter registered.
            if Task.isCancelled { return (true, [], nil) }
            if state.runs[key] == nil {
                let runID = state.makeID()
                state.runs[key] = Run(id: runID)
                // Started under the lock so that the run is in place before
                // any other caller or cancellation can look for it; the task
                // takes the lock itself only when it finishes, after this returns.
                state.runs[key]?.task = Task { [self] in
                    let result: Result<Value, any Error>
                    do {
                        result = .success(try await operation())
                    } catch {
                        result = .failure(error)
                    }
                    finish(key: key, runID: runID, with: result)
                }
            }
            state.runs[key]?.waiters[waiterID] = continuation
            return (false, state.satisfiedWatchers(), state.runs[key]?.task)
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        for watcher in watchers { watcher.resume() }
        // A run started by a low-priority caller (a prefetch) speeds up for a
        // more urgent one that joins it, as awaiting its task would make it.
        // Its own starter counts too: a new task takes its creator's base
        // priority, not an escalation the creator received. Read after the
        // waiter is registered, so an escalation that lands later reaches
        // the run through the handler in `value(for:operation:)`. Outside
        // the lock: escalation runs the run's own handlers, which may take it.
        if let run { Self.escalate(run, to: Task.currentPriority) }
    }

    /// Raises the priority of the run that waiter `waiterID` waits for.
    private func escalateRun(for key: Key, waiterID: UInt64, to priority: TaskPriority) {
        let run = state.withLock { state in
            state.runs[key].flatMap { $0.waiters[waiterID] == nil ? nil : $0.task }
        }
        if let run { Self.escalate(run, to: priority) }
    }

    private static func escalate(_ run: Task<Void, Never>, to priority: TaskPriority) {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            run.escalatePriority(to: priority)
        }
    }

    private func leave(key: Key, waiterID: UInt64) {
        let (waiter, abandonedTask) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let waiter = state.runs[key]?.waiters.removeValue(forKey: waiterID) else {
                // Already resumed with the run's result, or not yet joined
                // (`join` then sees the cancellation itself).
                return (nil, nil)
            }
            guard cancelsAbandonedWork, let run = state.runs[key], run.waiters.isEmpty else { return (waiter, nil) }
            // Nobody wants this run any more: forget it now, so that a new
            // caller starts a fresh run instead of joining a cancelled one.
            state.runs[key] = nil
            return (waiter, run.task)
        }
        abandonedTask?.cancel()
        waiter?.resume(throwing: CancellationError())
    }

    private func finish(key: Key, runID: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [Waiter] in
            // The run may have been abandoned and its key reused by a newer run.
            guard let run = state.runs[key], run.id == runID else { return [] }
            state.runs[key] = nil
            return Array(run.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
