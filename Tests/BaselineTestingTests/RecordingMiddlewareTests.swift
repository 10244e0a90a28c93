import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("RecordingMiddleware", .timeLimit(.minutes(1)))
struct RecordingMiddlewareTests {
    let transport = StubTransport()

    func client(_ middleware: [any HTTPMiddleware]) -> HTTPClient {
        HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport, middleware: middleware)
    }

    @Test func recordsEachRequestInOrderAndPassesItOnUnchanged() async throws {
        transport.on(.get, "/a", respond: .text("a"))
        transport.on(.delete, "/b", respond: .status(.noContent))
        let recorder = RecordingMiddleware()
        let client = client([recorder])
        #expect(recorder.count == 0 && recorder.last == nil)

        #expect(try await client.send(Request<String>.get("/a", query: [.init(name: "q", value: "1")])).value == "a")
        try await client.send(Request<Void>.delete("/b"))

        #expect(recorder.count == 2)
        #expect(recorder.paths == ["/a?q=1", "/b"])
        #expect(recorder.requests.map(\.method) == [.get, .delete])
        #expect(recorder.last?.method == .delete)
        #expect(transport.requests.map(\.head) == recorder.requests)
        recorder.reset()
        #expect(recorder.requests.isEmpty)
    }

    @Test func lastInTheChainItSeesWhatOtherMiddlewareAdded() async throws {
        transport.on(.get, "/me", respond: .text("astro"))
        let outer = RecordingMiddleware()
        let inner = RecordingMiddleware()
        let client = client([outer, AddsHeader(name: .authorization, value: "Bearer t0ken"), inner])
        _ = try await client.send(Request<String>.get("/me"))
        #expect(outer.last?.headerFields[.authorization] == nil)
        #expect(inner.last?.headerFields[.authorization] == "Bearer t0ken")
    }

    @Test func aWaitEndsWhenTheRequestReachesItWhileTheCallIsInFlight() async throws {
        let held = transport.hold(.get, "/slow")
        let seen = LockedValue<[String]>([])
        let recorder = RecordingMiddleware { request in seen.withLock { $0.append(request.path ?? "") } }
        let client = client([recorder])
        let call = Task { try await client.send(Request<String>.get("/slow")) }

        try await recorder.waitForRequests(1)
        #expect(seen.current == ["/slow"])
        try await recorder.waitForRequests(1)  // already there: returns at once
        #expect(try await held.nextCall().resume(returning: .text("done")))
        #expect(try await call.value.value == "done")
    }

    @Test func aWaitThatIsCancelledThrows() async throws {
        let recorder = RecordingMiddleware()
        let wait = Task { try await recorder.waitForRequests(1) }
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(recorder.count == 0)
    }
}

/// Adds one header field, as authentication middleware does.
private struct AddsHeader: HTTPMiddleware {
    let name: HTTPField.Name
    let value: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        var request = request
        request.headerFields[name] = value
        return try await next(request, body)
    }
}
