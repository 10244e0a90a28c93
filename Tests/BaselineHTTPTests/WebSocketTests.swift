import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("WebSocket", .timeLimit(.minutes(1)))
struct WebSocketTests {
    struct Favourite: Codable, Equatable {
        var photo: String
        var count: Int
    }

    let transport = StubTransport()
    let clock = SleepRecordingClock()

    func client(middleware: [any HTTPMiddleware] = []) -> HTTPClient {
        HTTPClient(
            configuration: .init(baseURL: URL(string: "https://api.test")!, clock: clock),
            transport: transport,
            middleware: middleware
        )
    }

    /// No keep-alive and no reconnection: only what a test turns on.
    static let plain = WebSocket.Configuration(keepAlive: nil)

    // MARK: Messages

    @Test func messagesGoBothWays() async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        let connection = try await server.nextConnection()

        try await socket.send(.text("hello"))
        try await socket.send(json: Favourite(photo: "earthrise", count: 1))
        #expect(try await connection.nextSent() == .text("hello"))
        #expect(try await connection.nextSent().decode(Favourite.self) == Favourite(photo: "earthrise", count: 1))

        connection.deliver(.binary(Data([1, 2, 3])))
        connection.deliver(.text(#"{"photo":"earthrise","count":2}"#))
        #expect(try await socket.receive() == .binary(Data([1, 2, 3])))
        var decoded = socket.messages(of: Favourite.self).makeAsyncIterator()
        #expect(try await decoded.next() == Favourite(photo: "earthrise", count: 2))
    }

    @Test func theHandshakeAsksForAnUpgradeWithTheClientsFields() async throws {
        transport.webSocket("/live")
        let request = Request<Void>.get(
            "/live",
            headerFields: [HTTPField.Name("Sec-WebSocket-Protocol")!: "favourites.v1"]
        )
        _ = try await client().webSocket(request, configuration: Self.plain)
        let handshake = try #require(transport.requests.first)
        #expect(handshake.path == "/live")
        #expect(handshake.head.scheme == "https")
        #expect(handshake.headerFields[.upgrade] == "websocket")
        #expect(handshake.headerFields[HTTPField.Name("Sec-WebSocket-Protocol")!] == "favourites.v1")
        #expect(handshake.headerFields[.acceptEncoding] == nil)
    }

    @Test func aMessageThatDoesNotDecodeThrowsADecodingError() async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        try await server.nextConnection().deliver(.text("not json"))
        var decoded = socket.messages(of: Favourite.self).makeAsyncIterator()
        await #expect {
            _ = try await decoded.next()
        } throws: { error in
            guard case .decodingFailed(_, let excerpt) = error as? HTTPClientError else { return false }
            return excerpt == "not json"
        }
        #expect(socket.isConnected)
    }

    // MARK: Handshake

    @Test func aHandshakeAnsweredWith200IsRefused() async throws {
        transport.webSocket("/live", script: [.refuse(.text("plain HTTP here"))])
        await #expect(
            throws: WebSocketError.handshakeRefused(
                HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain; charset=utf-8"]),
                body: Data("plain HTTP here".utf8)
            )
        ) {
            _ = try await client().webSocket(.get("/live"), configuration: Self.plain)
        }
    }

    @Test func aTransportWithoutWebSocketsSaysSo() async throws {
        struct HTTPOnly: HTTPTransport {
            func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
                (HTTPResponse(status: .ok), HTTPBody(Data()))
            }
        }
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: HTTPOnly())
        await #expect(throws: WebSocketError.unsupportedTransport("HTTPOnly")) {
            _ = try await client.webSocket(.get("/live"))
        }
    }

    @Test func bearerAuthenticationRefreshesATokenRefusedAtTheHandshake() async throws {
        let tokens = BearerAuthenticationTests.StubTokens("stale")
        let server = transport.webSocket("/live", script: [.refuse(.status(.unauthorized)), .accept])
        let opening = Task { [self] in
            try await client(middleware: [BearerAuthentication(provider: tokens)])
                .webSocket(.get("/live"), configuration: Self.plain)
        }
        let refresh = try await tokens.refreshes.nextCall()
        #expect(refresh.arguments == "stale")
        refresh.resume(returning: "fresh")
        let socket = try await opening.value
        let connection = try await server.nextConnection()
        #expect(connection.request.headerFields[.authorization] == "Bearer fresh")
        #expect(transport.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh"])
        #expect(socket.isConnected)
    }

    @Test func coalescingNeverSharesAHandshake() async throws {
        let server = transport.webSocket("/live")
        let client = client(middleware: [RequestCoalescing()])
        async let first = client.webSocket(.get("/live"), configuration: Self.plain)
        async let second = client.webSocket(.get("/live"), configuration: Self.plain)
        let sockets = try await [first, second]
        #expect(server.allConnections.count == 2)
        #expect(sockets.allSatisfy { $0.isConnected })
    }

    // MARK: Closing

    @Test func closingSendsTheCodeAndEndsTheMessages() async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        let connection = try await server.nextConnection()
        await socket.close(WebSocketCloseCode(rawValue: 4000), reason: "bye")
        #expect(try await connection.nextClose() == WebSocketCloseCode(rawValue: 4000))
        #expect(connection.closedByClient?.reason == "bye")
        #expect(try await socket.receive() == nil)
        await #expect(throws: WebSocketError.notConnected) { try await socket.send(.text("late")) }
        #expect(!socket.isConnected)
    }

    @Test func aNormalClosureFromTheServerEndsTheMessages() async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        let connection = try await server.nextConnection()
        connection.deliver(.text("last"))
        connection.closeFromServer(.normalClosure)
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == [.text("last")])
    }

    @Test(arguments: [WebSocketCloseCode.internalServerError, nil])
    func anyOtherCloseFromTheServerThrowsIt(_ code: WebSocketCloseCode?) async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        try await server.nextConnection().closeFromServer(code, reason: code == nil ? "" : "oops")
        await #expect(throws: WebSocketError.closed(code, reason: code == nil ? "" : "oops")) {
            _ = try await socket.receive()
        }
        #expect(try await socket.receive() == nil)
    }

    @Test func cancellingTheReaderClosesTheSocket() async throws {
        let server = transport.webSocket("/live")
        let socket = try await client().webSocket(.get("/live"), configuration: Self.plain)
        let connection = try await server.nextConnection()
        let reader = Task { try await socket.receive() }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(try await connection.nextClose() == .goingAway)
        #expect(!socket.isConnected)
    }

    // MARK: Keep-alive

    @Test func aPeerThatStopsAnsweringPingsIsFoundDead() async throws {
        let server = transport.webSocket("/live")
        let configuration = WebSocket.Configuration(keepAlive: .init(interval: .seconds(30), timeout: .seconds(10)))
        let socket = try await client().webSocket(.get("/live"), configuration: configuration)
        let connection = try await server.nextConnection()
        var sleeps = clock.sleeps.makeAsyncIterator()

        // One ping answered, then the peer goes quiet.
        #expect(await sleeps.next() == .seconds(30))
        await clock.advance(past: .seconds(30))
        try await connection.nextPing()
        #expect(await sleeps.next() == .seconds(10))  // the pong's deadline, ended by the pong
        #expect(await sleeps.next() == .seconds(30))
        connection.answerPings(.ignore)
        await clock.advance(past: .seconds(30))
        try await connection.nextPing()
        #expect(await sleeps.next() == .seconds(10))
        await clock.advance(past: .seconds(10))

        await #expect(throws: WebSocketError.peerNotResponding) { _ = try await socket.receive() }
        #expect(try await connection.nextClose() == .goingAway)
    }

    // MARK: Reconnection

    @Test func aDroppedConnectionIsMadeAgainAndSubscribedAgain() async throws {
        let server = transport.webSocket("/live")
        let configuration = WebSocket.Configuration(
            keepAlive: nil,
            reconnection: .init(initialDelay: .seconds(1), maximumDelay: .seconds(8), jitter: 0)
        )
        let socket = try await client().webSocket(.get("/live"), configuration: configuration) { socket in
            try await socket.send(.text("subscribe"))
        }
        let first = try await server.nextConnection()
        #expect(try await first.nextSent() == .text("subscribe"))
        first.deliver(.text("one"))
        first.drop()

        let reader = Task {
            var received: [WebSocketMessage] = []
            for try await message in socket.messages {
                received.append(message)
                if received.count == 2 { break }
            }
            return received
        }
        var sleeps = clock.sleeps.makeAsyncIterator()
        #expect(await sleeps.next() == .seconds(1))
        #expect(!socket.isConnected)
        await #expect(throws: WebSocketError.notConnected) { try await socket.send(.text("meanwhile")) }
        await clock.advance(past: .seconds(1))

        let second = try await server.nextConnection()
        #expect(try await second.nextSent() == .text("subscribe"))
        second.deliver(.text("two"))
        #expect(try await reader.value == [.text("one"), .text("two")])
        #expect(socket.isConnected)
    }

    @Test func reconnectionBacksOffAndGivesUpAfterItsAttempts() async throws {
        let unavailable = StubResponse.status(.serviceUnavailable)
        let server = transport.webSocket(
            "/live",
            script: [.accept, .refuse(unavailable), .refuse(unavailable), .refuse(unavailable)]
        )
        let configuration = WebSocket.Configuration(
            keepAlive: nil,
            reconnection: .init(initialDelay: .seconds(1), maximumDelay: .seconds(3), jitter: 0, maximumAttempts: 3)
        )
        let socket = try await client().webSocket(.get("/live"), configuration: configuration)
        try await server.nextConnection().drop()
        let reader = Task { try await socket.receive() }

        var sleeps = clock.sleeps.makeAsyncIterator()
        for expected: Duration in [.seconds(1), .seconds(2), .seconds(3)] {
            #expect(await sleeps.next() == expected)
            await clock.advance(past: expected)
        }
        await #expect {
            _ = try await reader.value
        } throws: { error in
            guard case .handshakeRefused(let head, _) = error as? WebSocketError else { return false }
            return head.status == .serviceUnavailable
        }
        #expect(transport.requests.count == 4)
        #expect(!socket.isConnected)
    }

    @Test func badInputEndsTheSocketWithoutReconnecting() async throws {
        let server = transport.webSocket("/live")
        let configuration = WebSocket.Configuration(keepAlive: nil, reconnection: .init(jitter: 0))
        let socket = try await client().webSocket(.get("/live"), configuration: configuration)
        try await server.nextConnection().drop(.messageTooLarge(limit: 1 << 20))
        await #expect(throws: WebSocketError.messageTooLarge(limit: 1 << 20)) { _ = try await socket.receive() }
        #expect(server.allConnections.count == 1)
        #expect(try await socket.receive() == nil)
    }

    @Test func closingStopsAReconnectionInProgress() async throws {
        let server = transport.webSocket("/live")
        let configuration = WebSocket.Configuration(keepAlive: nil, reconnection: .init(jitter: 0))
        let socket = try await client().webSocket(.get("/live"), configuration: configuration)
        try await server.nextConnection().drop()
        let reader = Task { try await socket.receive() }
        var sleeps = clock.sleeps.makeAsyncIterator()
        #expect(await sleeps.next() == .seconds(1))
        await socket.close()
        #expect(try await reader.value == nil)
        #expect(server.allConnections.count == 1)
    }

    @Test func theBackoffGrowsToItsMaximum() {
        let policy = WebSocket.Reconnection(initialDelay: .milliseconds(500), maximumDelay: .seconds(5), multiplier: 2)
        let waits = (1...7).map { policy.delay(beforeAttempt: $0) }
        #expect(
            waits == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5)]
        )
        #expect(policy.delay(beforeAttempt: 10_000) == .seconds(5))
    }
}

#if canImport(FoundationNetworking)
@Suite("URLSessionTransport's WebSocket on Linux", .timeLimit(.minutes(1)))
struct URLSessionWebSocketOnLinuxTests {
    /// FoundationNetworking runs WebSockets through libcurl, built without
    /// them on common distributions: the handshake says so in words, and
    /// apps use the AsyncHTTPClient transport instead.
    @Test func aLibcurlWithoutWebSocketsIsReportedAsUnsupported() async throws {
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: URLSessionTransport())
        await #expect {
            _ = try await client.webSocket(.get("/live"))
        } throws: { error in
            guard case .unsupportedTransport(let detail) = error as? WebSocketError else { return false }
            return detail.contains("libcurl")
        }
    }
}
#endif
