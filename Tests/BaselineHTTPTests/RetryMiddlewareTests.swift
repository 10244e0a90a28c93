import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("RetryMiddleware", .timeLimit(.minutes(1)))
struct RetryMiddlewareTests {
    let transport = StubTransport()
    let clock = SleepRecordingClock()

    func retry(_ policy: RetryPolicy = RetryPolicy(), random: Double = 0.5, now: Date = Date()) -> RetryMiddleware {
        RetryMiddleware(policy: policy, clock: clock, random: { random }, now: { now })
    }

    /// Sends through `middleware` in a task, ending each sleep as it starts.
    func sendLettingSleepsEnd(
        _ request: HTTPRequest,
        body: HTTPBody? = nil,
        through middleware: RetryMiddleware,
        sleeps: Int
    ) async throws -> (HTTPResponse, Data) {
        let sending = Task { [transport] in try await send(request, body: body, through: [middleware], to: transport) }
        var started = clock.sleeps.makeAsyncIterator()
        for _ in 0..<sleeps {
            let duration = try #require(await started.next())
            await clock.advance(past: duration)
        }
        return try await sending.value
    }

    @Test func backsOffExponentiallyWithFullJitterUpToTheMaximumDelay() async throws {
        transport.on(
            .get,
            "/x",
            script: [.status(.serviceUnavailable), .status(.badGateway), .status(.internalServerError), .text("ok")]
        )
        let policy = RetryPolicy(maximumAttempts: 4, baseDelay: .seconds(1), maximumDelay: .seconds(3))
        let (response, body) = try await sendLettingSleepsEnd(
            apiRequest(.get, "/x"),
            through: retry(policy, random: 0.5),
            sleeps: 3
        )
        #expect(response.status == .ok)
        #expect(body == Data("ok".utf8))
        // Ceilings 1 s, 2 s, then 4 s capped to 3 s; the random fraction 0.5 of each.
        #expect(clock.recorded.current == [.milliseconds(500), .seconds(1), .milliseconds(1_500)])
        #expect(transport.requests.count == 4)
    }

    @Test func waitsAsLongAsRetryAfterSecondsSays() async throws {
        transport.on(.get, "/x", script: [.status(.tooManyRequests, headerFields: [.retryAfter: "7"]), .text("ok")])
        let (response, _) = try await sendLettingSleepsEnd(apiRequest(.get, "/x"), through: retry(), sleeps: 1)
        #expect(response.status == .ok)
        #expect(clock.recorded.current == [.seconds(7)])
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850, obsolete but still to be accepted
        "Sun Nov  6 08:49:37 1994",  // asctime, likewise
    ])
    func waitsUntilTheRetryAfterDate(_ date: String) async throws {
        // 1994-11-06 08:49:37 UTC, and a "now" twelve seconds before it.
        let now = Date(timeIntervalSince1970: 784_111_777 - 12)
        transport.on(
            .get,
            "/x",
            script: [.status(.serviceUnavailable, headerFields: [.retryAfter: date]), .text("ok")]
        )
        let (response, _) = try await sendLettingSleepsEnd(apiRequest(.get, "/x"), through: retry(now: now), sleeps: 1)
        #expect(response.status == .ok)
        #expect(clock.recorded.current == [.seconds(12)])
    }

    @Test func aRetryAfterBeyondTheMaximumReturnsTheResponseWithoutWaiting() async throws {
        transport.on(
            .get,
            "/x",
            script: [.status(.serviceUnavailable, headerFields: [.retryAfter: "3600"]), .text("ok")]
        )
        let (response, _) = try await send(apiRequest(.get, "/x"), through: [retry()], to: transport)
        #expect(response.status == .serviceUnavailable)
        #expect(response.headerFields[.retryAfter] == "3600")
        #expect(clock.recorded.current.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test func postIsNotRetriedByDefault() async throws {
        transport.on(.post, "/x", script: [.status(.serviceUnavailable), .text("ok")])
        let (response, _) = try await send(
            apiRequest(.post, "/x"),
            body: HTTPBody("{}"),
            through: [retry()],
            to: transport
        )
        #expect(response.status == .serviceUnavailable)
        #expect(transport.requests.count == 1)
    }

    @Test func postIsRetriedWhenThePolicyAllowsIt() async throws {
        transport.on(.post, "/x", script: [.status(.serviceUnavailable), .text("ok")])
        var policy = RetryPolicy()
        policy.retryableMethods.insert(.post)
        let (response, _) = try await sendLettingSleepsEnd(
            apiRequest(.post, "/x"),
            body: HTTPBody("{}"),
            through: retry(policy),
            sleeps: 1
        )
        #expect(response.status == .ok)
        #expect(transport.requests.map(\.body) == [Data("{}".utf8), Data("{}".utf8)])
    }

    @Test func aStreamedBodyIsNeverSentAgain() async throws {
        transport.on(.put, "/x", script: [.status(.serviceUnavailable), .text("ok")])
        let (response, _) = try await send(
            apiRequest(.put, "/x"),
            body: streamedBody("data"),
            through: [retry()],
            to: transport
        )
        #expect(response.status == .serviceUnavailable)
        #expect(transport.requests.count == 1)
    }

    @Test func stopsAfterTheMaximumAttemptsAndTheClientReportsTheLastResponse() async throws {
        transport.on(
            .get,
            "/x",
            respond: StubResponse(
                status: .serviceUnavailable,
                headerFields: [.retryAfter: "1"],
                body: Data("still down".utf8)
            )
        )
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport, middleware: [retry()])
        let sending = Task { try await client.send(Request<Void>.get("/x")) }
        var started = clock.sleeps.makeAsyncIterator()
        for _ in 0..<2 {
            await clock.advance(past: try #require(await started.next()))
        }
        await #expect {
            try await sending.value
        } throws: { error in
            guard let error = error as? HTTPClientError else { return false }
            return error.status == .serviceUnavailable && error.responseBody == Data("still down".utf8)
                && error.responseHead?.headerFields[.retryAfter] == "1"
        }
        #expect(transport.requests.count == 3)
    }

    @Test func retriesATransportError() async throws {
        let failures = LockedValueCounter()
        transport.on(.get, "/x") { _ in
            if failures.increment() == 1 { throw URLError(.networkConnectionLost) }
            return .text("ok")
        }
        let (response, _) = try await sendLettingSleepsEnd(apiRequest(.get, "/x"), through: retry(), sleeps: 1)
        #expect(response.status == .ok)
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: [HTTPClientError.invalidRequest(reason: "bad"), .responseTooLarge(limit: 1)])
    func doesNotRetryErrorsThatWouldRepeat(_ failure: HTTPClientError) async throws {
        transport.on(.get, "/x") { _ in throw failure }
        await #expect(throws: HTTPClientError.self) {
            try await send(apiRequest(.get, "/x"), through: [retry()], to: transport)
        }
        #expect(transport.requests.count == 1)
        #expect(clock.recorded.current.isEmpty)
    }

    @Test func cancellationDuringTheBackoffSurfacesAtOnce() async throws {
        let held = transport.hold(.get, "/x")
        let middleware = retry()
        let sending = Task { [transport] in
            try await send(apiRequest(.get, "/x"), through: [middleware], to: transport)
        }
        try await held.nextCall().resume(returning: .status(.serviceUnavailable))
        var started = clock.sleeps.makeAsyncIterator()
        _ = await started.next()

        sending.cancel()
        await #expect(throws: CancellationError.self) { try await sending.value }
        #expect(held.callCount == 1)
    }
}
