import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Clocks
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("FactCounter", .timeLimit(.minutes(2)))
struct FactCounterTests {
    let facts = ControllableCall<Int, String>()
    var factClient: FactClient {
        let facts = self.facts
        return FactClient { try await facts($0) }
    }

    @Test func countsUpAndDown() async {
        let store = TestStore(initialState: FactCounter.State()) { FactCounter(factClient: factClient) }
        await store.send(.increment) { $0.count.value = 1 }
        await store.send(.increment) { $0.count.value = 2 }
        await store.send(.decrement) { $0.count.value = 1 }
    }

    /// The count as the app keeps it: a row of the to-do database, on disk.
    @Test func theCountSurvivesARelaunch() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("todos.sqlite")
        let first = try await SQLiteDatabase.open(at: file, migrator: TodoSchema.migrator)
        let store = TestStore(initialState: FactCounter.State()) {
            FactCounter(factClient: factClient, count: .row("counter", in: first))
        }
        await store.send(.count(.start)) {
            $0.count.isFollowing = true
            $0.count.isLoading = true
        }
        await store.receive(.count(.loaded(nil))) { $0.count.isLoading = false }
        await store.send(.increment) { $0.count.value = 1 }
        await store.send(.increment) { $0.count.value = 2 }
        await store.send(.count(.stop)) { $0.count.isFollowing = false }
        await store.finish()  // the saves

        // The next launch: another connection, another store.
        let second = try await SQLiteDatabase.open(at: file, migrator: TodoSchema.migrator)
        let relaunched = TestStore(initialState: FactCounter.State()) {
            FactCounter(factClient: factClient, count: .row("counter", in: second))
        }
        await relaunched.send(.count(.start)) {
            $0.count.isFollowing = true
            $0.count.isLoading = true
        }
        await relaunched.receive(.count(.loaded(2))) {
            $0.count.value = 2
            $0.count.isLoading = false
        }
        await relaunched.send(.count(.stop)) { $0.count.isFollowing = false }
        await relaunched.finish()
        _ = first
    }

    @Test func refreshLoadsAFactAndIsLoadingOnlyMeanwhile() async throws {
        let store = TestStore(initialState: FactCounter.State(count: 7)) { FactCounter(factClient: factClient) }
        await store.send(.refresh) { $0.isLoading = true }
        let call = try await facts.nextCall()
        #expect(call.arguments == 7)
        #expect(store.state.isLoading)
        call.resume(returning: "7 is a prime number.")
        await store.receive(.factResponse(.success("7 is a prime number."))) {
            $0.isLoading = false
            $0.fact = "7 is a prime number."
        }
        await store.finish()
    }

    @Test func cancelStopsTheFetchMidFlight() async throws {
        let store = TestStore(initialState: FactCounter.State()) { FactCounter(factClient: factClient) }
        await store.send(.refresh) { $0.isLoading = true }
        let call = try await facts.nextCall()
        await store.send(.cancel) { $0.isLoading = false }
        #expect(call.isCancelled)
        await store.finish()  // nothing arrives: the effect is gone
    }

    @Test func aFailureIsShownAsTheFact() async throws {
        let store = TestStore(initialState: FactCounter.State()) { FactCounter(factClient: factClient) }
        await store.send(.refresh) { $0.isLoading = true }
        try await facts.nextCall().resume(throwing: URLError(.timedOut))
        // One human line, not the URLError's dump.
        await store.receive(.factResponse(.failure(.init(message: "The request to the server timed out")))) {
            $0.isLoading = false
            $0.fact = "Could not load a fact: The request to the server timed out"
        }
        await store.finish()
    }

    @Test func whenTheServerFailsTheFallbackComesAfterTheDelayOnTheInjectedClock() async throws {
        let transport = StubTransport()
        transport.on(.get, "/facts/3", respond: .status(.serviceUnavailable))
        let clock = TestClock()
        let sleeping = SleepSignal()
        let live = FactClient.live(
            client: HTTPClient(baseURL: URL(string: "https://facts.test")!, transport: transport),
            clock: SignallingClock(base: clock, signal: sleeping),
            fallbackDelay: .seconds(1)
        )
        let store = TestStore(initialState: FactCounter.State(count: 3)) { FactCounter(factClient: live) }
        await store.send(.refresh) { $0.isLoading = true }

        await sleeping.next()  // the client is waiting on the clock…
        #expect(store.state.isLoading)  // …and only the clock can wake it
        await clock.advance(by: .seconds(1) + .nanoseconds(1))
        await store.receive(.factResponse(.success("3 is a good number."))) {
            $0.isLoading = false
            $0.fact = "3 is a good number."
        }
        await store.finish()
    }

    @Test func theAwaitableSendFinishesExactlyWhenTheEffectDoes() async throws {
        let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: factClient) }
        let finished = ControllableCall<Void, Void>()
        let refreshing = Task {
            await store.send(.refresh).finish()
            try await finished()
        }
        let call = try await facts.nextCall()
        // The effect is suspended in our double: the refresh cannot have finished.
        #expect(finished.callCount == 0)
        #expect(store.isLoading)
        call.resume(returning: "0 is zero.")
        let done = try await finished.nextCall()
        // When `finish()` returned, the response had been handled.
        #expect(store.fact == "0 is zero.")
        #expect(store.isLoading == false)
        done.resume()
        try await refreshing.value
    }

    @Test func refreshWhileRefreshingReplacesTheFirstFetch() async throws {
        let store = TestStore(initialState: FactCounter.State()) { FactCounter(factClient: factClient) }
        await store.send(.refresh) { $0.isLoading = true }
        let first = try await facts.nextCall()
        await store.send(.refresh)
        let second = try await facts.nextCall()
        #expect(first.isCancelled)
        second.resume(returning: "fresh")
        await store.receive(.factResponse(.success("fresh"))) {
            $0.isLoading = false
            $0.fact = "fresh"
        }
        await store.finish()
    }
}

/// Tells the test each time something starts sleeping on the clock.
final class SleepSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func fire() { continuation.yield() }

    func next() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// A clock that signals each sleep, then sleeps on its base (a `TestClock`).
///
/// The deadline is fixed before the signal, so advancing past it wakes the
/// sleeper whether it registered with the base clock before or after.
struct SignallingClock<Base: Clock>: Clock where Base.Duration == Duration {
    let base: Base
    let signal: SleepSignal

    var now: Base.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    // The Clock requirement, on a test clock.
    func sleep(until deadline: Base.Instant, tolerance: Duration?) async throws {  // sleep-ok: see above
        signal.fire()
        try await base.sleep(until: deadline, tolerance: tolerance)  // sleep-ok: TestClock, advanced by the test
    }
}
