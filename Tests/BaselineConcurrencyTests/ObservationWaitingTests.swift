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
    @Test func returnsAtOnceWhenTheConditionHolds() async {
        let counter = Counter()
        await waitUntil(counter) { $0.count == 0 }
    }

    @Test func waitsForChangesMadeElsewhere() async {
        let counter = Counter()
        let changer = Task { @MainActor in
            for _ in 0..<3 {
                counter.count += 1
                await Task.yield()
            }
        }
        await waitUntil(counter) { $0.count == 3 }
        #expect(counter.count == 3)
        await changer.value
    }
}
