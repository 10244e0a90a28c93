import BaselineConcurrency
import Foundation

/// Lets at most `limit` downloads run at once; the others wait, the highest
/// priority first, then the oldest, so an image on screen does not queue
/// behind a page of prefetches.
final class DownloadQueue: Sendable {
    private struct Waiter {
        let id: UInt64
        let url: URL
        var priority: ImageRequestPriority
        let start: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    let limit: Int
    private let state = LockedValue(State())
    /// Woken whenever the line changes, for ``waitUntilWaiting(atLeast:)``.
    private let changes = IdleWaiters()

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many downloads wait for a slot (for tests and diagnostics).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Suspends until at least `count` downloads wait for a slot.
    func waitUntilWaiting(atLeast count: Int) async throws {
        try await changes.wait { waitingCount >= count }
    }

    /// Runs `download` once a slot is free.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits
    ///   (it then never starts), or what `download` throws.
    func withSlot<T>(
        for url: URL,
        priority: ImageRequestPriority,
        _ download: () async throws -> T
    ) async throws -> T {
        try await acquire(url, priority)
        defer { release() }
        return try await download()
    }

    /// Raises a waiting download of `url` to `priority`, if it waits lower.
    func raise(_ url: URL, to priority: ImageRequestPriority) {
        state.withLock { state in
            for index in state.waiting.indices where state.waiting[index].url == url {
                state.waiting[index].priority = max(state.waiting[index].priority, priority)
            }
        }
    }

    private func acquire(_ url: URL, _ priority: ImageRequestPriority) async throws {
        let id: UInt64? = state.withLock { state in
            if state.running < limit, state.waiting.isEmpty {
                state.running += 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (start: CheckedContinuation<Void, any Error>) in
                state.withLock { $0.waiting.append(Waiter(id: id, url: url, priority: priority, start: start)) }
                changes.resumeAll()
                // A slot may have freed before this waiter was in line.
                startWaiting()
                // Cancelled before the handler could find this waiter in line.
                if Task.isCancelled { leave(id) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Takes waiter `id` out of line, if it is still there, and ends its wait.
    private func leave(_ id: UInt64) {
        let waiter = state.withLock { state in
            state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0) }
        }
        waiter?.start.resume(throwing: CancellationError())
    }

    private func release() {
        state.withLock { $0.running -= 1 }
        startWaiting()
    }

    /// Starts the most urgent waiters while slots are free.
    private func startWaiting() {
        while let next = state.withLock({ state -> Waiter? in
            guard state.running < limit, let first = state.waiting.indices.first else { return nil }
            // Highest priority, then the oldest (the lowest id) among those.
            let index = state.waiting.indices.dropFirst().reduce(first) { best, index in
                state.waiting[index].priority > state.waiting[best].priority ? index : best
            }
            state.running += 1
            return state.waiting.remove(at: index)
        }) {
            next.start.resume()
        }
    }
}
