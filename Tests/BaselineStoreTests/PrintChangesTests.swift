import BaselineStore
import BaselineTesting
import Testing

@MainActor
@Suite("Printing state changes", .timeLimit(.minutes(1)))
struct PrintChangesTests {
    /// Lines written by a printer, in order.
    final class Output {
        var lines: [String] = []
        func write(_ text: String) { lines += text.split(separator: "\n").map(String.init) }
    }

    func makeStore(_ output: Output) -> Store<CounterFeature.State, CounterFeature.Action> {
        Store(initialState: CounterFeature.State(count: 5)) {
            CounterFeature(fetchFact: { "\($0) is a number" }).printingChanges(.lines(to: output.write))
        }
    }

    @Test func eachActionIsPrintedWithTheLinesItChanged() {
        let output = Output()
        let store = makeStore(output)
        store.send(.increment)
        #expect(store.count == 6)
        #expect(output.lines.first == "received action: increment")
        #expect(output.lines.contains("-   - count: 5"))
        #expect(output.lines.contains("+   - count: 6"))
        // Unchanged fields are left out; the value's own line gives context.
        #expect(!output.lines.contains { $0.contains("isLoading") })
        #expect(output.lines.contains { $0.hasPrefix("  ▿") && $0.contains("State") })
    }

    @Test func anActionThatChangesNothingSaysSo() {
        let output = Output()
        let store = makeStore(output)
        store.send(.cancel)
        #expect(output.lines == ["received action: cancel", "  (no state change)"])
    }

    @Test func aCustomPrinterGetsTheActionAndBothStates() {
        var seen: [(CounterFeature.Action, Int, Int)] = []
        let store = Store(initialState: CounterFeature.State()) {
            CounterFeature(fetchFact: { "\($0)" }).printingChanges(
                ChangePrinter { action, old, new in
                    seen.append((action, old.count, new.count))
                }
            )
        }
        store.send(.increment)
        store.send(.decrement)
        #expect(seen.map(\.0) == [.increment, .decrement])
        #expect(seen.map(\.1) == [0, 1] && seen.map(\.2) == [1, 0])
    }

    @Test func effectsStillRunAndTheirActionsArePrintedToo() async {
        let output = Output()
        let store = makeStore(output)
        await store.send(.refresh).finish()
        #expect(store.fact == "5 is a number")
        #expect(
            output.lines.filter { $0.hasPrefix("received action:") } == [
                "received action: refresh", "received action: factResponse(\"5 is a number\")",
            ]
        )
    }

    @Test func aTestStoreTestsAPrintingReducerAsItsBase() async {
        let output = Output()
        let store = TestStore(initialState: CounterFeature.State()) {
            CounterFeature(fetchFact: { "\($0)" }).printingChanges(.lines(to: output.write))
        }
        await store.send(.increment) { $0.count = 1 }
        #expect(output.lines.contains("+   - count: 1"))
    }
}
