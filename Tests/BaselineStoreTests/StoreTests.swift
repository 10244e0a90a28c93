import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Observation
import Testing

@MainActor
@Suite("Store", .timeLimit(.minutes(1)))
struct StoreTests {
    let facts = ControllableCall<Int, String>()
    var fetchFact: @Sendable (Int) async throws -> String {
        let facts = self.facts
        return { try await facts($0) }
    }

    func makeStore(logs: LogRecorder = LogRecorder()) -> Store<CounterFeature.State, CounterFeature.Action> {
        Store(initialState: CounterFeature.State(), logger: logs.logger()) { CounterFeature(fetchFact: fetchFact) }
    }

    @Test func sendRunsTheReducer() {
        let store = makeStore()
        store.send(.increment)
        store.send(.increment)
        store.send(.decrement)
        #expect(store.count == 1)
        #expect(store.state == CounterFeature.State(count: 1))
    }

    @Test func stateIsObservable() {
        let store = makeStore()
        let changed = LockedValue(false)
        withObservationTracking {
            _ = store.count
        } onChange: {
            changed.withLock { $0 = true }
        }
        store.send(.increment)
        #expect(changed.current)
    }

    @Test func anEffectSendsItsResultBackAndTheTaskFinishesWithIt() async throws {
        let store = makeStore()
        store.send(.increment)
        let refresh = store.send(.refresh)
        #expect(store.isLoading)

        let call = try await facts.nextCall()
        #expect(call.arguments == 1)
        call.resume(returning: "1 is lonely")
        await refresh.finish()
        #expect(store.fact == "1 is lonely")
        #expect(store.isLoading == false)
    }

    @Test func cancellingByIDStopsTheEffect() async throws {
        let store = makeStore()
        let refresh = store.send(.refresh)
        let call = try await facts.nextCall()
        store.send(.cancel)
        await refresh.finish()
        #expect(call.isCancelled)
        #expect(store.isLoading == false)
        #expect(store.fact == nil)
    }

    @Test func cancelInFlightReplacesTheRunningEffect() async throws {
        let store = makeStore()
        store.send(.refresh)
        let first = try await facts.nextCall()
        store.send(.increment)
        let second = store.send(.refresh)
        let replacement = try await facts.nextCall()
        #expect(first.isCancelled)
        replacement.resume(returning: "1 is new")
        await second.finish()
        #expect(store.fact == "1 is new")
    }

    @Test func cancellationIDsBelongToOneStore() async throws {
        let one = makeStore()
        let other = makeStore()
        let oneRefresh = one.send(.refresh)
        let oneCall = try await facts.nextCall()
        other.send(.refresh)
        let otherCall = try await facts.nextCall()
        other.send(.cancel)
        #expect(otherCall.isCancelled)
        #expect(!oneCall.isCancelled)
        oneCall.resume(returning: "still here")
        await oneRefresh.finish()
        #expect(one.fact == "still here")
    }

    @Test func cancellingTheSendTaskCancelsItsEffects() async throws {
        let store = makeStore()
        let refresh = store.send(.refresh)
        let call = try await facts.nextCall()
        refresh.cancel()
        #expect(call.isCancelled)
    }

    @Test func sendWhileWaitsUntilThePredicateTurnsFalse() async throws {
        let store = makeStore()
        let refreshing = Task { await store.send(.refresh, while: \.isLoading) }
        let call = try await facts.nextCall()
        #expect(store.isLoading)
        call.resume(returning: "0 is nothing")
        await refreshing.value
        #expect(store.isLoading == false)
        #expect(store.fact == "0 is nothing")
    }

    @Test func concatenatedActionsRunInOrder() async {
        let store = makeStore()
        await store.send(.twice).finish()
        #expect(store.count == 2)
    }

    @Test func valuesOfAKeyPathFollowChanges() async {
        let store = makeStore()
        var counts = store.values(of: \.count).makeAsyncIterator()
        #expect(await counts.next() == 0)
        store.send(.increment)
        #expect(await counts.next() == 1)
        store.send(.refresh)  // changes isLoading, not count: nothing new
        store.send(.cancel)
        store.send(.increment)
        #expect(await counts.next() == 2)
    }

    @Test func releasingTheStoreCancelsItsEffectsAndSaysWhich() async throws {
        let logs = LogRecorder()
        var store: Store<CounterFeature.State, CounterFeature.Action>? = makeStore(logs: logs)
        store?.send(.refresh)
        let call = try await facts.nextCall()
        store = nil
        #expect(call.isCancelled)
        #if DEBUG
        #expect(
            logs.entries.contains { $0.level == .warning && $0.metadata["effects"]?.contains("fetch fact") == true }
        )
        #endif
    }

    @Test func aRunningEffectDoesNotKeepTheStoreAlive() async throws {
        var store: Store<CounterFeature.State, CounterFeature.Action>? = makeStore()
        store?.send(.refresh)
        _ = try await facts.nextCall()
        weak let released = store
        store = nil
        #expect(released == nil)
    }
}

@MainActor
@Suite("Store scoping", .timeLimit(.minutes(1)))
struct StoreScopingTests {
    let store = Store(initialState: ParentFeature.State(rows: [.init(id: 1), .init(id: 2)])) {
        ParentFeature(fetchFact: { "\($0) is a number" })
    }

    @Test func aChildStoreReadsAndSendsThroughItsParent() {
        let main = store.scope(state: \.main, action: \.main)
        main.send(.increment)
        #expect(main.count == 1)
        #expect(store.main.count == 1)
    }

    @Test func anOptionalChildExistsOnlyWithItsState() {
        #expect(store.scope(state: \.sheet, action: \.sheet) == nil)
        store.send(.openSheet)
        let sheet = store.scope(state: \.sheet, action: \.sheet)
        sheet?.send(.increment)
        #expect(store.sheet?.count == 1)
        #expect(sheet?.count == 1)
        store.send(.closeSheet)
        #expect(sheet?.count == 1)  // the last state, not a crash
        sheet?.send(.increment)  // ignored: no state to apply it to
        #expect(store.sheet == nil)
    }

    @Test func eachElementOfACollectionGetsAStore() {
        let rows = store.scope(forEach: \.rows, action: \.rows)
        #expect(rows.map(\.id) == [1, 2])
        rows[1].send(.increment)
        #expect(store.rows.map(\.count) == [0, 1])
    }

    @Test func childEffectsComeBackThroughTheParent() async {
        let main = store.scope(state: \.main, action: \.main)
        await main.send(.refresh).finish()
        #expect(store.main.fact == "0 is a number")
    }

    @Test func scopedValuesFollowTheChild() async {
        let main = store.scope(state: \.main, action: \.main)
        var counts = main.values(of: \.count).makeAsyncIterator()
        #expect(await counts.next() == 0)
        store.send(.main(.increment))
        #expect(await counts.next() == 1)
    }
}

/// Counts how often bodies are built, to show that a store builds its
/// reducer's body once and not per action.
@MainActor
@Suite("Reducer bodies", .timeLimit(.minutes(1)))
struct ReducerBodyTests {
    final class Builds {
        var parent = 0
        var child = 0

        func parentBuilt() { parent += 1 }
        func childBuilt() { child += 1 }
    }

    struct Child: Reducer {
        let builds: Builds
        var body: some Reducer<Int, CounterFeature.Action> {
            let _ = builds.childBuilt()
            Reduce { count, action in
                if action == .increment { count += 1 }
                return .none
            }
        }
    }

    struct Parent: Reducer {
        struct State: Equatable { var child = 0, log: [String] = [] }
        @CasePathable
        enum Action: Equatable, Sendable {
            case child(CounterFeature.Action)
            case note(String)
        }

        let builds: Builds
        var body: some Reducer<State, Action> {
            let _ = builds.parentBuilt()
            Scope(state: \.child, action: \.child) { Child(builds: builds) }
            Reduce { state, action in
                if case let .note(text) = action { state.log.append(text) }
                return .none
            }
        }
    }

    @Test func aStoreBuildsItsBodyAndItsChildrensOnce() {
        let builds = Builds()
        let store = Store(initialState: Parent.State()) { Parent(builds: builds) }
        for _ in 0..<3 { store.send(.child(.increment)) }
        store.send(.note("done"))
        #expect(store.state == Parent.State(child: 3, log: ["done"]))
        #expect(builds.parent == 1)
        #expect(builds.child == 1)
    }

    @Test func aBodyRunsItsReducersInOrderAndConditionally() {
        struct Logging: Reducer {
            let verbose: Bool
            var body: some Reducer<[String], String> {
                Reduce { log, action in
                    log.append("first \(action)")
                    return .none
                }
                if verbose {
                    Reduce { log, action in
                        log.append("verbose \(action)")
                        return .none
                    }
                } else {
                    EmptyReducer()
                }
            }
        }
        let quiet = Store(initialState: []) { Logging(verbose: false) }
        let verbose = Store(initialState: []) { Logging(verbose: true) }
        quiet.send("a")
        verbose.send("a")
        #expect(quiet.state == ["first a"])
        #expect(verbose.state == ["first a", "verbose a"])
    }

    @Test func aReducerCalledDirectlyRunsItsBody() {
        let builds = Builds()
        var state = Parent.State()
        _ = Parent(builds: builds).reduce(into: &state, action: .child(.increment))
        #expect(state.child == 1)
    }
}
