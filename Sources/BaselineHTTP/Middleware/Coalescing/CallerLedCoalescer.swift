import BaselineConcurrency

/// Shares one run of an operation between concurrent callers with the same
/// key, running it in a caller's own task.
///
/// Unlike ``TaskCoalescer``, which runs the work in a task of its own and so
/// needs an escaping operation, this one runs the first caller's operation in
/// that caller's task: the operation never outlives the call that passed it.
/// That is what a middleware's non-escaping `next` allows. The price is in
/// cancellation: when the caller running the operation (the leader) is
/// cancelled, its run stops, and the longest-waiting other caller becomes the
/// leader and runs its own operation. The other callers never see the
/// leader's cancellation; each caller can still be cancelled on its own, at once.
final class CallerLedCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What a waiting caller is woken with.
    private enum Turn: Sendable {
        /// The leader was cancelled: run the operation yourself.
        case lead
        /// The leader's outcome.
        case done(Result<Value, any Error>)
    }

    private typealias Follower = CheckedContinuation<Turn, any Error>

    private struct Flight {
        /// Waiting callers, by ID; IDs grow, so the smallest waited longest.
        var followers: [UInt64: Follower] = [:]
    }

    private struct Watcher {
        let threshold: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0
        var watchers: [UInt64: Watcher] = [:]

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        var waiterCount: Int { flights.values.reduce(0) { $0 + $1.followers.count } }

        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let count = waiterCount
            let ready = watchers.filter { $0.value.threshold <= count }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = LockedValue(State())

    /// How many callers wait for a leader, over every key.
    var waiterCount: Int { state.withLock { $0.waiterCount } }

    /// How many keys have a run in flight.
    var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// The value of the run in flight for `key`, or of `operation`, run here
    /// when no run is in flight or when this caller takes over from a
    /// cancelled leader.
    func value(for key: Key, operation: () async throws -> Value) async throws -> Value {
        let id = state.withLock { $0.makeID() }
        switch try await turn(for: key, id: id) {
        case let .done(result):
            return try result.get()
        case .lead:
            break
        }
        let result: Result<Value, any Error>
        if Task.isCancelled {
            result = .failure(CancellationError())
        } else {
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
        }
        if Task.isCancelled {
            if case .success = result {
                // The run finished anyway: the others can have its value.
                finish(key: key, with: result)
            } else {
                // This caller's cancellation stopped the run; the others want it still.
                handOver(key: key)
            }
            throw CancellationError()
        }
        finish(key: key, with: result)
        return try result.get()
    }

    /// Leads at once when nothing is in flight for `key`; else waits to be
    /// told the outcome, or to take over.
    private func turn(for key: Key, id: UInt64) async throws -> Turn {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Follower) in
                let (immediate, watchers) = state.withLock { state -> (Result<Turn, any Error>?, [CheckedContinuation<Void, any Error>]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    guard state.flights[key] != nil else {
                        state.flights[key] = Flight()
                        return (.success(.lead), [])
                    }
                    state.flights[key]?.followers[id] = continuation
                    return (nil, state.satisfiedWatchers())
                }
                if let immediate { continuation.resume(with: immediate) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let follower = state.withLock { $0.flights[key]?.followers.removeValue(forKey: id) }
            follower?.resume(throwing: CancellationError())
        }
    }

    /// Makes the longest-waiting follower the leader, or ends the flight.
    private func handOver(key: Key) {
        let successor = state.withLock { state -> Follower? in
            guard let id = state.flights[key]?.followers.keys.min() else {
                state.flights[key] = nil
                return nil
            }
            return state.flights[key]?.followers.removeValue(forKey: id)
        }
        successor?.resume(returning: .lead)
    }

    private func finish(key: Key, with result: Result<Value, any Error>) {
        let followers = state.withLock { $0.flights.removeValue(forKey: key)?.followers.values.map { $0 } ?? [] }
        for follower in followers { follower.resume(returning: .done(result)) }
    }

    /// For tests: suspends until at least `count` callers wait for a leader.
    func waitUntilWaiting(atLeast count: Int) async throws {
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
}
