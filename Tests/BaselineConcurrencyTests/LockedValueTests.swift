import BaselineConcurrency
import Testing

@Suite("LockedValue")
struct LockedValueTests {
    @Test func concurrentUpdatesAreNeverLost() async {
        let counter = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { counter.withLock { $0 += 1 } }
            }
        }
        #expect(counter.current == 1_000)
    }

    @Test func withLockReturnsTheBodysResult() {
        let names = LockedValue(["a"])
        let count = names.withLock { names -> Int in
            names.append("b")
            return names.count
        }
        #expect(count == 2)
        #expect(names.current == ["a", "b"])
    }
}
