import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPClient.exchange: a request made elsewhere, through the client", .timeLimit(.minutes(1)))
struct ExchangeTests {
    let transport = StubTransport()

    func client(
        headerFields: HTTPFields = [.accept: "application/json"],
        decompressesResponses: Bool = true,
        timeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        middleware: [any HTTPMiddleware] = []
    ) -> HTTPClient {
        HTTPClient(
            configuration: .init(
                baseURL: URL(string: "https://api.test/v1")!,
                headerFields: headerFields,
                timeout: timeout,
                decompressesResponses: decompressesResponses,
                clock: clock
            ),
            transport: transport,
            middleware: middleware
        )
    }

    @Test func anyStatusIsReturnedWithItsBody() async throws {
        transport.on(.get, "/items/1", respond: .text("storage offline", status: .internalServerError))

        let response = try await client().exchange(apiRequest(.get, "/items/1"), body: nil)

        #expect(response.status == .internalServerError)
        #expect(try await response.body.collect(upTo: 1024) == Data("storage offline".utf8))
    }

    @Test func theRequestGoesWhereItSaysNotBelowTheBaseURL() async throws {
        transport.on(.get, "/items/1", respond: .text("ok"))
        let request = HTTPRequest(method: .get, scheme: "https", authority: "other.test", path: "/items/1?tag=a")

        _ = try await client().exchange(request, body: nil)

        let sent = try #require(transport.requests.first)
        #expect(sent.head.authority == "other.test")
        #expect(sent.head.path == "/items/1?tag=a")
    }

    @Test func theClientsHeaderFieldsGoUnlessTheRequestSetsThem() async throws {
        transport.on(.get, "/items", respond: .text("ok"))
        let client = client(headerFields: [.accept: "application/json", .userAgent: "Tests/1.0"])

        _ = try await client.exchange(apiRequest(.get, "/items"), body: nil)
        _ = try await client.exchange(
            apiRequest(.get, "/items", headerFields: [.accept: "text/csv", .acceptEncoding: "identity"]),
            body: nil
        )

        let fields = transport.requests.map(\.headerFields)
        try #require(fields.count == 2)
        #expect(fields[0][values: .accept] == ["application/json"])
        #expect(fields[0][values: .acceptEncoding] == ["gzip, deflate"])
        #expect(fields[0][.userAgent] == "Tests/1.0")
        #expect(fields[1][values: .accept] == ["text/csv"])
        #expect(fields[1][values: .acceptEncoding] == ["identity"])
        #expect(fields[1][.userAgent] == "Tests/1.0")
    }

    @Test func noAcceptEncodingWhenTheClientDoesNotInflate() async throws {
        transport.on(.get, "/items", respond: .text("ok"))

        _ = try await client(decompressesResponses: false).exchange(apiRequest(.get, "/items"), body: nil)

        #expect(transport.requests.first?.headerFields[.acceptEncoding] == nil)
    }

    @Test func aDefaultContentTypeDoesNotRelabelABody() async throws {
        transport.on(.post, "/items", respond: .status(.created))
        let client = client(headerFields: [.contentType: "application/json"])

        _ = try await client.exchange(apiRequest(.post, "/items"), body: HTTPBody("a,b"))
        _ = try await client.exchange(
            apiRequest(.post, "/items", headerFields: [.contentType: "text/csv"]),
            body: HTTPBody("a,b")
        )

        #expect(transport.requests.map { $0.headerFields[.contentType] } == [nil, "text/csv"])
        #expect(transport.requests.map(\.body) == [Data("a,b".utf8), Data("a,b".utf8)])
    }

    @Test func theMiddlewareRedirectsAndDecompressionApply() async throws {
        let recorder = RecordingMiddleware()
        transport.on(.get, "/old", respond: .status(.movedPermanently, headerFields: [.location: "/new"]))
        let compressed = try Compressed.bytes(Data("inflated".utf8), as: .gzip)
        transport.on(.get, "/new", respond: StubResponse(headerFields: [.contentEncoding: "gzip"], body: compressed))

        let response = try await client(middleware: [recorder]).exchange(apiRequest(.get, "/old"), body: nil)

        #expect(response.status == .ok)
        #expect(try await response.body.collect(upTo: 1024) == Data("inflated".utf8))
        #expect(recorder.paths == ["/old"])
        #expect(transport.requests.map(\.path) == ["/old", "/new"])
    }

    @Test func itReturnsAtTheHeadWhileTheBodyArrives() async throws {
        let (chunks, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
        transport.on(.get, "/events", respond: .streaming(chunks, length: 6))
        feed.yield(Data("abc".utf8))

        let response = try await client().exchange(apiRequest(.get, "/events"), body: nil)
        #expect(response.body.knownLength == 6)
        var reading = response.body.makeAsyncIterator()
        #expect(try await reading.next() == Data("abc".utf8))

        feed.yield(Data("def".utf8))
        feed.finish()
        #expect(try await reading.next() == Data("def".utf8))
        #expect(try await reading.next() == nil)
    }

    @Test func theClientsTimeoutAppliesUpToTheHead() async throws {
        let held = transport.hold(.get, "/slow")
        let clock = SleepRecordingClock()
        let client = client(timeout: .seconds(5), clock: clock)
        var timers = clock.sleeps.makeAsyncIterator()

        let calling = Task { try await client.exchange(apiRequest(.get, "/slow"), body: nil) }
        let call = try await held.nextCall()
        #expect(await timers.next() == .seconds(5))
        await clock.advance(past: .seconds(5))

        await #expect {
            _ = try await calling.value
        } throws: { error in
            guard case .timedOut(after: .seconds(5)) = error as? HTTPClientError else { return false }
            return true
        }
        #expect(call.isCancelled)
    }

    @Test func cancellationIsACancellationError() async throws {
        let held = transport.hold(.get, "/slow")
        let client = client()

        let calling = Task { try await client.exchange(apiRequest(.get, "/slow"), body: nil) }
        let call = try await held.nextCall()
        calling.cancel()

        await #expect(throws: CancellationError.self) { _ = try await calling.value }
        #expect(call.isCancelled)
    }

    @Test func aTransportFailureIsAnHTTPClientError() async throws {
        transport.on(.get, "/items") { _ in throw URLError(.cannotConnectToHost) }

        await #expect {
            _ = try await client().exchange(apiRequest(.get, "/items"), body: nil)
        } throws: { error in
            guard case let .transport(cause) = error as? HTTPClientError else { return false }
            return (cause as? URLError)?.code == .cannotConnectToHost
        }
    }

    @Test func aReplayableBodyIsRetried() async throws {
        transport.on(.put, "/items/1", script: [.status(.serviceUnavailable), .status(.noContent)])
        let client = client(middleware: [RetryMiddleware(random: { 0 })])

        let response = try await client.exchange(apiRequest(.put, "/items/1"), body: HTTPBody("v2"))

        #expect(response.status == .noContent)
        #expect(transport.requests.map(\.body) == [Data("v2".utf8), Data("v2".utf8)])
    }
}
