import BaselineStore
import BaselineTesting
import Testing

/// A feature whose `tick` starts an effect that reports `ran`, debounced or
/// throttled: what each modifier lets through, tick by tick.
struct Ticker: Reducer {
    enum Timing: Sendable {
        case debounce
        case throttle(latest: Bool)
    }

    struct State: Equatable {
        var ran: [Int] = []
    }

    enum Action: Equatable, Sendable {
        case tick(Int)
        case ran(Int)
        case cancel
    }

    enum CancelID { case tick }

    let timing: Timing
    let clock: SleepReportingClock
    /// When set, each effect's work: the test ends it.
    var work: ControllableCall<Int, Int>?

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case let .tick(number):
            let effect = Effect<Action>.run { [work] send in
                await send(.ran(try await work?(number) ?? number))
            }
            switch timing {
            case .debounce:
                return effect.debounce(id: CancelID.tick, for: .seconds(1), clock: clock)
            case let .throttle(latest):
                return effect.throttle(id: CancelID.tick, for: .seconds(1), clock: clock, latest: latest)
            }
        case let .ran(number):
            state.ran.append(number)
            return .none
        case .cancel:
            return .cancel(id: CancelID.tick)
        }
    }
}

@MainActor
@Suite("Debounced and throttled effects, on a test clock", .timeLimit(.minutes(1)))
struct EffectTimingTests {
    let clock = SleepReportingClock()

    func store(_ timing: Ticker.Timing) -> TestStore<Ticker.State, Ticker.Action> {
        TestStore(initialState: Ticker.State()) { Ticker(timing: timing, clock: clock) }
    }

    // MARK: Debounce

    @Test func onlyTheLastEffectOfABurstRunsAfterThePause() async throws {
        let store = store(.debounce)
        var sleeps = clock.sleeps.makeAsyncIterator()
        for number in 1...3 {
            await store.send(.tick(number))
            #expect(await sleeps.next() == .seconds(1))
            // Less than the pause: the next tick comes first.
            await clock.base.advance(by: .milliseconds(500))
        }
        // Each tick cancelled the one before it: only the last is left.
        await clock.advance(past: .milliseconds(500))
        await store.receive(.ran(3)) { $0.ran = [3] }
        await store.finish()
    }

    @Test func cancellingByIdCancelsAWaitingDebounce() async throws {
        let store = store(.debounce)
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        _ = await sleeps.next()
        await store.send(.cancel)
        // Nothing left to run, even once the pause has passed.
        await store.finish()
        #expect(store.state.ran.isEmpty)
    }

    // MARK: Throttle

    @Test(arguments: [true, false])
    func theFirstEffectStartsAtOnce(latest: Bool) async throws {
        let store = store(.throttle(latest: latest))
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }
        await store.finish()
    }

    @Test func withLatestTheLastEffectInsideTheWindowRunsAtItsEnd() async throws {
        let store = store(.throttle(latest: true))
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }

        await clock.base.advance(by: .milliseconds(300))
        await store.send(.tick(2))
        #expect(await sleeps.next() == .milliseconds(700))  // to the window's end
        await store.send(.tick(3))
        #expect(await sleeps.next() == .milliseconds(700))  // 3 replaces 2

        await clock.advance(past: .milliseconds(700))
        await store.receive(.ran(3)) { $0.ran = [1, 3] }
        await store.finish()
    }

    @Test func withoutLatestTheFirstEffectInsideTheWindowRunsAtItsEnd() async throws {
        let store = store(.throttle(latest: false))
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }

        await store.send(.tick(2))
        #expect(await sleeps.next() == .seconds(1))
        await store.send(.tick(3))  // dropped: 2 is kept for the window's end
        await store.send(.tick(4))

        await clock.advance(past: .seconds(1))
        await store.receive(.ran(2)) { $0.ran = [1, 2] }
        await store.finish()
    }

    @Test func anEffectAtTheWindowsEndOpensTheNextWindow() async throws {
        let store = store(.throttle(latest: true))
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }
        await store.send(.tick(2))
        #expect(await sleeps.next() == .seconds(1))
        await clock.advance(past: .seconds(1))
        await store.receive(.ran(2)) { $0.ran = [1, 2] }

        // 2 started when the first window ended: a tick now waits a whole window.
        await store.send(.tick(3))
        let wait = try #require(await sleeps.next())
        #expect(wait > .milliseconds(999) && wait <= .seconds(1))
        await clock.advance(past: wait)
        await store.receive(.ran(3)) { $0.ran = [1, 2, 3] }
        await store.finish()
    }

    @Test(arguments: [true, false])
    func anEffectStartedAtTheWindowsEndIsNotReplacedOrInTheWayWhileItRuns(latest: Bool) async throws {
        let work = ControllableCall<Int, Int>()
        let store = TestStore(initialState: Ticker.State()) {
            Ticker(timing: .throttle(latest: latest), clock: clock, work: work)
        }
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        try await work.nextCall().resume(returning: 1)
        await store.receive(.ran(1)) { $0.ran = [1] }

        await store.send(.tick(2))
        _ = await sleeps.next()
        await clock.advance(past: .seconds(1))
        let second = try await work.nextCall()  // 2 started at the window's end, and is still running

        // A tick now falls in the next window: it waits for that window's
        // end, neither cancelling 2 (latest) nor dropped because of it (first).
        await store.send(.tick(3))
        let wait = try #require(await sleeps.next())
        #expect(!second.isCancelled)
        second.resume(returning: 2)
        await store.receive(.ran(2)) { $0.ran = [1, 2] }

        await clock.advance(past: wait)
        try await work.nextCall().resume(returning: 3)
        await store.receive(.ran(3)) { $0.ran = [1, 2, 3] }
        await store.finish()
    }

    @Test func afterAQuietWindowTheNextEffectStartsAtOnce() async throws {
        let store = store(.throttle(latest: false))
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }
        await clock.base.advance(by: .seconds(1))
        await store.send(.tick(2))
        await store.receive(.ran(2)) { $0.ran = [1, 2] }
        await store.finish()
    }

    @Test func cancellingByIdCancelsAWaitingThrottledEffect() async throws {
        let store = store(.throttle(latest: true))
        var sleeps = clock.sleeps.makeAsyncIterator()
        await store.send(.tick(1))
        await store.receive(.ran(1)) { $0.ran = [1] }
        await store.send(.tick(2))
        _ = await sleeps.next()
        await store.send(.cancel)
        await store.finish()
        #expect(store.state.ran == [1])
    }

    @Test func storesHaveTheirOwnWindows() async throws {
        let first = store(.throttle(latest: false))
        let second = store(.throttle(latest: false))
        await first.send(.tick(1))
        await first.receive(.ran(1)) { $0.ran = [1] }
        // The same id in another store: its window is not open.
        await second.send(.tick(1))
        await second.receive(.ran(1)) { $0.ran = [1] }
        await first.finish()
        await second.finish()
    }
}
