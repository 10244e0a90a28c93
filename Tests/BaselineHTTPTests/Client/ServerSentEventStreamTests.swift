import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

/// A clock whose time stands still: each wait is recorded and returns at
/// once, so a test sees exactly which delays were asked for.
final class WaitRecordingClock: Clock, Sendable {
    typealias Duration = Swift.Duration
    private let origin = ContinuousClock.now
    private let recorded = LockedValue<[Duration]>([])

    var now: ContinuousClock.Instant { origin }
    var minimumResolution: Duration { .zero }
    var waits: [Duration] { recorded.current }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {  // sleep-ok: test clock
        recorded.withLock { $0.append(deadline - origin) }
        try Task.checkCancellation()
    }
}

/// A clock whose waits never end by themselves: they report that they
/// started, then last until the waiting task is cancelled.
final class EndlessWaitClock: Clock, Sendable {
    typealias Duration = Swift.Duration
    let started: AsyncStream<Void>
    private let report: AsyncStream<Void>.Continuation
    private let forever: AsyncStream<Never>
    private let keepOpen: AsyncStream<Never>.Continuation

    init() {
        (started, report) = AsyncStream.makeStream(of: Void.self)
        (forever, keepOpen) = AsyncStream.makeStream(of: Never.self)
    }

    var now: ContinuousClock.Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {  // sleep-ok: test clock
        report.yield()
        // An AsyncStream's iteration ends when the iterating task is cancelled.
        for await _ in forever {}
        throw CancellationError()
    }
}

@Suite("HTTPClient.serverSentEvents: reconnecting as EventSource does", .timeLimit(.minutes(1)))
struct ServerSentEventStreamTests {
    let transport = StubTransport()
    var client: HTTPClient { HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport) }

    static func events(_ text: String) -> StubResponse {
        StubResponse(headerFields: [.contentType: "text/event-stream"], body: Data(text.utf8))
    }

    func collect(_ stream: ServerSentEventStream) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in stream { events.append(event) }
        return events
    }

    var lastEventIDs: [String?] {
        transport.requests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] }
    }

    @Test func itReconnectsWhenTheServerEndsAndSendsTheLastEventID() async throws {
        transport.on(
            .get,
            "/feed",
            script: [
                Self.events("id: 1\ndata: a\n\nid: 2\ndata: b\n\n"),
                Self.events("data: c\n\n"),
                .status(.noContent),
            ]
        )
        let clock = WaitRecordingClock()
        let events = try await collect(
            client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .init(clock: clock))
        )
        #expect(events.map(\.data) == ["a", "b", "c"])
        // The last id carries over to events without one, across connections.
        #expect(events.map(\.id) == ["1", "2", "2"])
        #expect(lastEventIDs == [nil, "2", "2"])
        #expect(transport.requests.allSatisfy { $0.headerFields[.accept] == "text/event-stream" })
        #expect(clock.waits == [.seconds(3), .seconds(3)])
    }

    @Test func retrySetsTheWaitEvenInABlockWithoutData() async throws {
        transport.on(
            .get,
            "/feed",
            script: [Self.events("retry: 250\ndata: a\n\n"), Self.events("retry: 40\n\n"), .status(.noContent)]
        )
        let clock = WaitRecordingClock()
        _ = try await collect(client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .init(clock: clock)))
        #expect(clock.waits == [.milliseconds(250), .milliseconds(40)])
    }

    @Test func aDroppedConnectionResumesAfterTheLastEvent() async throws {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(Data("id: 7\nevent: favorite\ndata: x\n\ndata: half an ev".utf8))
        feed.finish(throwing: URLError(.networkConnectionLost))
        transport.on(
            .get,
            "/feed",
            script: [
                .streaming(chunks, headerFields: [.contentType: "text/event-stream; charset=utf-8"]),
                Self.events("id: 8\ndata: y\n\n"),
                .status(.noContent),
            ]
        )
        let events = try await collect(
            client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .init(clock: WaitRecordingClock()))
        )
        // The event cut off by the drop is not dispatched.
        #expect(events.map(\.data) == ["x", "y"])
        #expect(lastEventIDs == [nil, "7", "8"])
    }

    @Test func aDropKeepsTheRetryButNotTheIDOfAnEventItCutOff() async throws {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(Data("retry: 70\nid: 1\ndata: a\n\nid: 2\ndata: cut off".utf8))
        feed.finish(throwing: URLError(.networkConnectionLost))
        transport.on(
            .get,
            "/feed",
            script: [.streaming(chunks, headerFields: [.contentType: "text/event-stream"]), .status(.noContent)]
        )
        let clock = WaitRecordingClock()
        let events = try await collect(
            client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .init(clock: clock))
        )
        #expect(events.map(\.data) == ["a"])
        // Event 2 never reached its blank line: the server must send it again.
        #expect(lastEventIDs == [nil, "1"])
        #expect(clock.waits == [.milliseconds(70)])
    }

    @Test func anHTTPErrorEndsTheStream() async throws {
        transport.on(.get, "/feed", script: [Self.events("data: a\n\n"), .status(.serviceUnavailable)])
        var received: [String] = []
        await #expect {
            for try await event in client.serverSentEvents(
                Request<Void>.get("/feed"),
                reconnection: .init(clock: WaitRecordingClock())
            ) {
                received.append(event.data)
            }
        } throws: { error in
            (error as? HTTPClientError)?.status == .serviceUnavailable
        }
        #expect(received == ["a"])
        #expect(transport.requests.count == 2)
    }

    /// WHATWG HTML, the EventSource constructor's fetch: "Otherwise, if
    /// res's status is not 200, or if res's `Content-Type` is not
    /// `text/event-stream`, then fail the connection." Failing the
    /// connection sets the state to CLOSED: no reconnection. A 2xx the
    /// client accepts (its default range is 200..<300) is no exception.
    @Test(arguments: [205, 206, 210, 299])
    func aSuccessOtherThan200FailsTheConnectionWithoutReconnecting(code: Int) async throws {
        let status = HTTPResponse.Status(code: code)
        transport.on(
            .get,
            "/feed",
            script: [
                StubResponse(
                    status: status,
                    headerFields: [.contentType: "text/event-stream"],
                    body: Data("data: not an event\n\n".utf8)
                ),
                Self.events("data: never read\n\n"),
            ]
        )
        var received: [String] = []
        await #expect {
            // At most one failed attempt: read as a stream, the 2xx would
            // reconnect until the script runs out, then stop.
            for try await event in client.serverSentEvents(
                Request<Void>.get("/feed"),
                reconnection: .init(maximumAttempts: 1, clock: WaitRecordingClock())
            ) {
                received.append(event.data)
            }
        } throws: { error in
            (error as? HTTPClientError)?.status == status
        }
        #expect(received.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test func anEventOverItsLimitEndsTheStreamWithoutReconnecting() async throws {
        transport.on(
            .get,
            "/feed",
            script: [Self.events("data: 12345\ndata: 67890\n\n"), Self.events("data: never read\n\n")]
        )
        await #expect {
            try await collect(
                client.serverSentEvents(
                    Request<Void>.get("/feed"),
                    reconnection: .init(maximumAttempts: 1, clock: WaitRecordingClock()),
                    maximumEventLength: 10
                )
            )
        } throws: { error in
            if case .responseTooLarge(limit: 10) = error as? HTTPClientError { true } else { false }
        }
        #expect(transport.requests.count == 1)
    }

    @Test func anAnswerThatIsNotAnEventStreamEndsIt() async throws {
        transport.on(.get, "/feed", respond: .text("{}", contentType: "application/json"))
        await #expect {
            try await collect(client.serverSentEvents(Request<Void>.get("/feed")))
        } throws: { error in
            if case .unacceptableContentType("application/json", _) = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func failedAttemptsInARowEndItPastTheMaximum() async throws {
        transport.on(.get, "/feed") { _ in throw URLError(.cannotConnectToHost) }
        let clock = WaitRecordingClock()
        await #expect {
            try await collect(
                client.serverSentEvents(
                    Request<Void>.get("/feed"),
                    reconnection: .init(delay: .milliseconds(10), maximumAttempts: 2, clock: clock)
                )
            )
        } throws: { error in
            if case .transport = error as? HTTPClientError { true } else { false }
        }
        #expect(transport.requests.count == 3)
        #expect(clock.waits == [.milliseconds(10), .milliseconds(10)])
    }

    @Test func neverEndsWithTheFirstConnection() async throws {
        transport.on(.get, "/feed", respond: Self.events("data: only\n\n"))
        let events = try await collect(client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .never))
        #expect(events.map(\.data) == ["only"])
        #expect(transport.requests.count == 1)
    }

    @Test func cancellationEndsAWaitAtOnce() async throws {
        transport.on(.get, "/feed", respond: Self.events("data: a\n\n"))
        let clock = EndlessWaitClock()
        let stream = client.serverSentEvents(Request<Void>.get("/feed"), reconnection: .init(clock: clock))
        let reading = Task { try await collect(stream) }
        for await _ in clock.started { break }
        reading.cancel()
        await #expect(throws: CancellationError.self) { try await reading.value }
        #expect(transport.requests.count == 1)
    }
}
