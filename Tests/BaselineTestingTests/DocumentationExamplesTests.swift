import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Clocks
import Testing

// The code the BaselineTesting article "Testing Async Code Without Sleeping"
// shows for time-based effects. Kept here, not in a snippet, because snippets
// cannot import swift-clocks; the article copies it, so keep the two in step.

/// A search that waits for a pause in typing before it asks the server.
struct DebouncedSearch: Reducer {
    struct State: Equatable {
        var query = ""
        var results: [String] = []
    }

    enum Action: Equatable, Sendable {
        case queryChanged(String)
        case resultsLoaded([String])
    }

    enum CancelID { case search }

    let search: @Sendable (String) async throws -> [String]
    let clock: any Clock<Duration>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case let .queryChanged(query):
            state.query = query
            return .run { [search] send in
                await send(.resultsLoaded(try await search(query)))
            }
            .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
        case let .resultsLoaded(results):
            state.results = results
            return .none
        }
    }
}

/// swift-clocks' `TestClock`, telling the test when a sleep has started, so
/// the test advances time only once the code is asleep.
final class SleepReportingClock: Clock {
    let base = TestClock()
    private let started: AsyncStream<Duration>
    private let startedContinuation: AsyncStream<Duration>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream()
    }

    var now: TestClock<Duration>.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    // A TestClock's sleep, ended by the test's advance.
    func sleep(until deadline: TestClock<Duration>.Instant, tolerance: Duration?) async throws {  // sleep-ok: see above
        startedContinuation.yield(base.now.duration(to: deadline))
        try await base.sleep(until: deadline, tolerance: tolerance)  // sleep-ok: the test clock's, ended by advance
    }

    /// The durations of sleeps as they start.
    var sleeps: AsyncStream<Duration> { started }

    /// Ends a sleep of `duration` that has started. One nanosecond past it:
    /// the sleeper may not have reached `base` yet, and a deadline already
    /// passed ends a sleep at once, where one equal to `now` waits for more.
    func advance(past duration: Duration) async {
        await base.advance(by: duration + .nanoseconds(1))
    }
}

@MainActor
@Suite("Documentation examples", .timeLimit(.minutes(1)))
struct DocumentationExamplesTests {
    let clock = SleepReportingClock()
    let search = ControllableCall<String, [String]>()

    @Test func searchWaitsForAPauseInTyping() async throws {
        let store = TestStore(initialState: DebouncedSearch.State()) {
            DebouncedSearch(search: { [search] in try await search($0) }, clock: clock)
        }
        var sleeps = clock.sleeps.makeAsyncIterator()

        await store.send(.queryChanged("d")) { $0.query = "d" }
        #expect(await sleeps.next() == .milliseconds(300))

        // A second keystroke within the pause cancels the first search, sleep and all.
        await store.send(.queryChanged("du")) { $0.query = "du" }
        let pause = try #require(await sleeps.next())
        await clock.advance(past: pause)

        let call = try await search.nextCall()
        #expect(call.arguments == "du")
        #expect(search.callCount == 1)
        call.resume(returning: ["Dune"])

        await store.receive(.resultsLoaded(["Dune"])) { $0.results = ["Dune"] }
        await store.finish()
    }
}
