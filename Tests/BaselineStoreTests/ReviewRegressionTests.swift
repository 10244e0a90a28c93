import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Testing

/// A feature whose actions run effects in sequence.
/// What a parent of ``Sequenced`` sends it.
@CasePathable
private enum Host: Sendable { case child(Sequenced.Action) }

private struct Sequenced: Reducer {
    struct State: Equatable { var log: [String] = [] }
    enum Action: Equatable, Sendable {
        case start
        case step(String)
        case fail
    }

    let first: ControllableCall<Void, String>
    let second: ControllableCall<Void, String>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            return .concatenate(
                .run { [first] send in await send(.step(try await first())) },
                .run { [second] send in await send(.step(try await second())) }
            )
        case let .step(name):
            state.log.append(name)
            return .none
        case .fail:
            struct Broken: Error {}
            return .run { _ in throw Broken() }
        }
    }
}

@MainActor
@Suite("Store regressions", .timeLimit(.minutes(1)))
struct ReviewRegressionTests {
    let first = ControllableCall<Void, String>()
    let second = ControllableCall<Void, String>()

    @Test func theTestStoreSeesConcatenatedEffects() async throws {
        let store = TestStore(initialState: Sequenced.State()) { Sequenced(first: first, second: second) }
        await store.send(.start)
        #expect(store.runningEffectCount > 0)  // the whole sequence counts, before its first step starts
        try await first.nextCall().resume(returning: "a")
        await store.receive(.step("a")) { $0.log = ["a"] }
        try await second.nextCall().resume(returning: "b")
        await store.receive(.step("b")) { $0.log = ["a", "b"] }
        await store.finish()
    }

    @Test func releasingTheStoreStopsAConcatenationMidway() async throws {
        var store: Store<Sequenced.State, Sequenced.Action>? = Store(initialState: Sequenced.State()) {
            Sequenced(first: first, second: second)
        }
        let task = try #require(store).send(.start)
        let call = try await first.nextCall()
        store = nil
        await task.finish()
        #expect(call.isCancelled)
        #expect(second.callCount == 0)  // the next step never started
    }

    @Test func aChildEffectsErrorWithoutAHandlerIsStillLogged() async throws {
        let logs = LogRecorder()
        let parent = Store(initialState: Sequenced.State(), logger: logs.logger()) {
            Scope(state: \Sequenced.State.self, action: \Host.AllCasePaths.child) {
                Sequenced(first: first, second: second)
            }
        }
        await parent.send(.child(.fail)).finish()
        #expect(logs.entries.contains { $0.level == .error && $0.message.contains("no error handler") })
    }

    @Test func twoReadersOfOneValuesSequenceBothGetTheNewestValue() async throws {
        let store = Store(initialState: CounterFeature.State()) { CounterFeature(fetchFact: { _ in "" }) }
        let counts = store.values(of: \.count)
        let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
        let readers = (0..<2).map { _ in
            Task { @MainActor in
                var iterator = counts.makeAsyncIterator()
                let first = await iterator.next()
                readySink.yield()
                return [first, await iterator.next()]
            }
        }
        var readyReaders = ready.makeAsyncIterator()
        _ = await readyReaders.next()
        _ = await readyReaders.next()
        store.send(.increment)
        for reader in readers {
            #expect(await reader.value == [0, 1])
        }
    }
}
