import BaselineTesting
import Testing

@Suite("ControllableCall", .timeLimit(.minutes(1)))
struct ControllableCallTests {
    struct Failure: Error, Equatable {}

    @Test func aCallWaitsUntilTheTestResumesIt() async throws {
        let fetch = ControllableCall<Int, String>()
        let caller = Task { try await fetch(7) }
        let call = try await fetch.nextCall()
        #expect(call.arguments == 7)
        #expect(fetch.callCount == 1)
        call.resume(returning: "seven")
        #expect(try await caller.value == "seven")
    }

    @Test func nextCallReturnsACallThatStartedEarlier() async throws {
        let fetch = ControllableCall<Int, String>()
        let first = Task { try await fetch(1) }
        let firstCall = try await fetch.nextCall()
        let second = Task { try await fetch(2) }
        let secondCall = try await fetch.nextCall()
        #expect([firstCall.arguments, secondCall.arguments] == [1, 2])
        secondCall.resume(throwing: Failure())
        firstCall.resume(returning: "one")
        #expect(try await first.value == "one")
        await #expect(throws: Failure()) { try await second.value }
        #expect(fetch.calls == [1, 2])
    }

    @Test func cancellingTheCallerEndsTheCallWithCancellationError() async throws {
        let work = ControllableCall<Void, Void>()
        let caller = Task { try await work() }
        let call = try await work.nextCall()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(call.isCancelled)
        #expect(call.resume() == false)
    }

    @Test func resumingTwiceHasNoEffect() async throws {
        let work = ControllableCall<Void, Int>()
        let caller = Task { try await work() }
        let call = try await work.nextCall()
        #expect(call.resume(returning: 1))
        #expect(call.resume(returning: 2) == false)
        #expect(try await caller.value == 1)
    }

    @Test func waitingForACallCanBeCancelled() async throws {
        let work = ControllableCall<Void, Void>()
        let waiter = Task { try await work.nextCall() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(work.callCount == 0)
    }
}
