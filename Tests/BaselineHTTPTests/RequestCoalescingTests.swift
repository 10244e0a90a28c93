import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("RequestCoalescing", .timeLimit(.minutes(1)))
struct RequestCoalescingTests {
    let transport = StubTransport()
    let coalescing = RequestCoalescing()

    func start(_ request: HTTPRequest) -> Task<(HTTPResponse, Data), any Error> {
        Task { [transport, coalescing] in try await send(request, through: [coalescing], to: transport) }
    }

    /// Starts one caller and waits for its call to reach the transport, then
    /// starts `followers` more and waits until all of them wait for that call.
    func startSharedCall(
        on held: ControllableCall<RecordedRequest, StubResponse>,
        followers: Int
    ) async throws -> (
        leader: Task<(HTTPResponse, Data), any Error>, followers: [Task<(HTTPResponse, Data), any Error>],
        call: ControllableCall<RecordedRequest, StubResponse>.Invocation
    ) {
        let leader = start(apiRequest(.get, "/me"))
        let call = try await held.nextCall()
        let others = (0..<followers).map { _ in start(apiRequest(.get, "/me")) }
        try await coalescing.waitUntilWaiting(atLeast: followers + 1)
        return (leader, others, call)
    }

    @Test func tenIdenticalGetsMakeOneCall() async throws {
        let held = transport.hold(.get, "/me")
        let (leader, followers, call) = try await startSharedCall(on: held, followers: 9)
        call.resume(returning: .text("me"))

        for caller in [leader] + followers {
            let (response, body) = try await caller.value
            #expect(response.status == .ok)
            #expect(body == Data("me".utf8))
        }
        #expect(transport.requests.count == 1)
        #expect(coalescing.waitingCount == 0)
    }

    @Test func differentURLsAreNotCoalesced() async throws {
        let held = transport.hold(.get, "/me")
        let first = start(apiRequest(.get, "/me?page=1"))
        let second = start(apiRequest(.get, "/me?page=2"))
        try await held.nextCall().resume(returning: .text("a"))
        try await held.nextCall().resume(returning: .text("b"))
        _ = try await (first.value, second.value)
        #expect(transport.requests.count == 2)
    }

    @Test func differentHeaderFieldsAreNotCoalesced() async throws {
        let held = transport.hold(.get, "/me")
        let first = start(apiRequest(.get, "/me", headerFields: [.authorization: "Bearer a"]))
        let second = start(apiRequest(.get, "/me", headerFields: [.authorization: "Bearer b"]))
        try await held.nextCall().resume(returning: .text("a"))
        try await held.nextCall().resume(returning: .text("b"))
        _ = try await (first.value, second.value)
        #expect(transport.requests.count == 2)
    }

    @Test func postsAreNotCoalesced() async throws {
        let held = transport.hold(.post, "/me")
        let first = start(apiRequest(.post, "/me"))
        let second = start(apiRequest(.post, "/me"))
        try await held.nextCall().resume(returning: .text("a"))
        try await held.nextCall().resume(returning: .text("b"))
        _ = try await (first.value, second.value)
        #expect(transport.requests.count == 2)
    }

    @Test func aCancelledFollowerLeavesAndTheOthersShareTheCall() async throws {
        let held = transport.hold(.get, "/me")
        let (leader, followers, call) = try await startSharedCall(on: held, followers: 2)

        followers[0].cancel()
        await #expect(throws: CancellationError.self) { try await followers[0].value }
        #expect(!call.isCancelled)

        call.resume(returning: .text("me"))
        #expect(try await leader.value.1 == Data("me".utf8))
        #expect(try await followers[1].value.1 == Data("me".utf8))
        #expect(transport.requests.count == 1)
    }

    @Test func theCallerThatStartedTheCallCanCancelWithoutStoppingIt() async throws {
        let held = transport.hold(.get, "/me")
        let (leader, followers, call) = try await startSharedCall(on: held, followers: 2)

        leader.cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(!call.isCancelled)

        call.resume(returning: .text("me"))
        for follower in followers {
            #expect(try await follower.value.1 == Data("me".utf8))
        }
        #expect(transport.requests.count == 1)
    }

    @Test func whenEveryCallerCancelsTheCallIsCancelled() async throws {
        let held = transport.hold(.get, "/me")
        let (leader, followers, call) = try await startSharedCall(on: held, followers: 2)

        for follower in followers { follower.cancel() }
        leader.cancel()
        for caller in [leader] + followers {
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
        #expect(call.isCancelled)
        #expect(transport.requests.count == 1)
    }

    @Test func aBodyOverTheLimitFailsEveryCaller() async throws {
        let coalescing = RequestCoalescing(maximumBodySize: 2)
        transport.on(.get, "/big", respond: .text("too big"))
        await #expect {
            try await send(apiRequest(.get, "/big"), through: [coalescing], to: transport)
        } throws: { error in
            guard case .responseTooLarge(2) = error as? HTTPClientError else { return false }
            return true
        }
    }
}
