import BaselineConcurrency
import Observation
import Testing

@MainActor
@Observable
final class Counter {
    var count = 0
}

@MainActor
@Suite("waitUntil", .timeLimit(.minutes(1)))
struct ObservationWaitingTests {
    @Test func returnsAtOnceWhenTheConditionHolds() async throws {
        let counter = Counter()
        var evaluations = 0
        try await waitUntil(counter) { counter in
            evaluations += 1
            return counter.count == 0
        }
        // One evaluation: no observation was set up, nothing waited for a change.
        #expect(evaluations == 1)
    }

    @Test func waitsForChangesMadeElsewhere() async throws {
        let counter = Counter()
        let changer = Task { @MainActor in
            for _ in 0..<3 {
                counter.count += 1
                await Task.yield()
            }
        }
        try await waitUntil(counter) { $0.count == 3 }
        #expect(counter.count == 3)
        await changer.value
    }

    @Test func cancellingAWaitThatIsSuspendedEndsItWithCancellationError() async throws {
        let counter = Counter()
        // The condition is evaluated a second time inside the observation,
        // just before the wait suspends: that is when to cancel.
        let (tracking, tracked) = AsyncStream.makeStream(of: Void.self)
        var evaluations = 0
        let waiter = Task { @MainActor in
            try await waitUntil(counter) { counter in
                evaluations += 1
                if evaluations == 2 { tracked.yield() }
                return counter.count == 1
            }
        }
        for await _ in tracking { break }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(counter.count == 0)
    }

    @Test func aTaskCancelledBeforeItWaitsThrowsWithoutWaiting() async throws {
        let counter = Counter()
        let waiter = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            try await waitUntil(counter) { $0.count == 1 }
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test func aConditionThatHoldsWinsOverCancellation() async throws {
        let counter = Counter()
        let waiter = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            try await waitUntil(counter) { $0.count == 0 }
        }
        try await waiter.value
    }
}
