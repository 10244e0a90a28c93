import Foundation
import Testing

@testable import SpacePhotosServer

/// The login limiter locks an id after repeated failures, and forgets
/// records with nothing left to say a few at a time, oldest first: an
/// attempt's work does not grow with the number of ids it holds.
@Suite("LoginRateLimiter: lockout, and a bounded cost per attempt")
struct LoginRateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func fiveFailuresLockAnIDForTheLockout() async {
        let limiter = LoginRateLimiter()
        for _ in 0..<5 { #expect(await limiter.admit("astro", now: start) == nil) }
        #expect(await limiter.admit("astro", now: start) == 60)
        #expect(await limiter.admit("astro", now: start.addingTimeInterval(59.5)) == 1)
        #expect(await limiter.admit("comet", now: start) == nil)
        // Once the lockout is over, attempts are admitted again.
        #expect(await limiter.admit("astro", now: start.addingTimeInterval(60)) == nil)
    }

    @Test func failuresOutsideTheWindowDoNotCount() async {
        let limiter = LoginRateLimiter()
        for second in 0..<4 { _ = await limiter.admit("astro", now: start.addingTimeInterval(Double(second))) }
        // The first four fall out of the minute: four more are admitted.
        for second in 61..<65 {
            #expect(await limiter.admit("astro", now: start.addingTimeInterval(Double(second))) == nil)
        }
        #expect(await limiter.admit("astro", now: start.addingTimeInterval(65)) == nil)
        #expect(await limiter.admit("astro", now: start.addingTimeInterval(65)) != nil)
    }

    @Test func aSuccessForgetsTheFailures() async {
        let limiter = LoginRateLimiter()
        for _ in 0..<4 { _ = await limiter.admit("astro", now: start) }
        await limiter.recordSuccess(for: "astro")
        #expect(await limiter.trackedIDs == 0)
        for _ in 0..<5 { #expect(await limiter.admit("astro", now: start) == nil) }
    }

    @Test func anAttemptLooksAtAFewRecordsHoweverManyIDsAreLive() async {
        let limiter = LoginRateLimiter()
        for index in 0..<20_000 { _ = await limiter.admit("guess-\(index)", now: start) }
        #expect(await limiter.trackedIDs == 20_000)
        let before = await limiter.recordsExamined
        for index in 0..<100 { _ = await limiter.admit("more-\(index)", now: start.addingTimeInterval(1)) }
        let examined = await limiter.recordsExamined - before
        // The stalest record still counts, so each attempt stops at it.
        #expect(examined <= 100)
        #expect(await limiter.trackedIDs == 20_100)
    }

    @Test func staleRecordsAreForgottenAsAttemptsCome() async {
        let limiter = LoginRateLimiter()
        for index in 0..<1_000 { _ = await limiter.admit("guess-\(index)", now: start) }
        let later = start.addingTimeInterval(61)
        // Each attempt forgets up to four stale records and adds one.
        for index in 0..<250 { _ = await limiter.admit("later-\(index)", now: later) }
        #expect(await limiter.trackedIDs == 250)
        #expect(await limiter.recordsExamined <= 4 * 1_250)
    }

    @Test func aLockedIDIsNotForgottenWhileLocked() async {
        let limiter = LoginRateLimiter(policy: .init(maxFailures: 2, window: .seconds(10), lockout: .seconds(600)))
        for _ in 0..<2 { _ = await limiter.admit("astro", now: start) }
        // Its failures are long out of the window, but the lockout holds.
        for index in 0..<50 { _ = await limiter.admit("other-\(index)", now: start.addingTimeInterval(300)) }
        #expect(await limiter.admit("astro", now: start.addingTimeInterval(300)) == 300)
    }
}
