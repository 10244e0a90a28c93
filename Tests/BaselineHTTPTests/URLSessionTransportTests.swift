import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLSessionTransport", .timeLimit(.minutes(1)))
struct URLSessionTransportTests {
    @Test func sendsARequestAndReturnsStatusHeadersAndBody() async throws {
        let server = try LoopbackSocketServer(
            answer:
                "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nX-Server: loop\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        )
        defer { withExtendedLifetime(server) {} }
        let client = HTTPClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: URLSessionTransport()
        )
        let response = try await client.send(Request<String>.post("/things", body: .data(Data("x".utf8))))
        #expect(response.status == .created)
        #expect(response.headerFields[HTTPField.Name("X-Server")!] == "loop")
        #expect(response.value == "hello")
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        let port = LoopbackSocketServer.closedPort
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: URLSessionTransport())
        await #expect {
            try await client.send(Request<Void>.get("/"))
        } throws: { error in
            if case .transport = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func cancellingTheTaskCancelsTheRequestInFlight() async throws {
        let server = try LoopbackSocketServer(answer: nil)
        // Kept alive to the end: released early, it would stop listening.
        defer { withExtendedLifetime(server) {} }
        let client = HTTPClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: URLSessionTransport()
        )
        let call = Task { try await client.send(Request<Data>.get("/never-answered")) }
        var received = server.requestReceived.makeAsyncIterator()
        #expect(await received.next() != nil)  // the request is on the server: in flight
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test func waitingForIdleEndsWhenTheLastTransferEndsOrTheWaiterIsCancelled() async throws {
        let server = try LoopbackSocketServer(answer: nil)
        defer { withExtendedLifetime(server) {} }
        let transport = URLSessionTransport()
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: transport)
        let call = Task { try await client.send(Request<Data>.get("/never-answered")) }
        var received = server.requestReceived.makeAsyncIterator()
        #expect(await received.next() != nil)
        #expect(transport.activeTransferCount == 1)

        // A transfer that never ends: a leak check waiting for idle must
        // end when its task is cancelled (a test's time limit), not hang.
        let leakCheck = Task { try await transport.waitUntilIdle() }
        leakCheck.cancel()
        await #expect(throws: CancellationError.self) { try await leakCheck.value }

        let idle = Task { try await transport.waitUntilIdle() }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        try await idle.value
    }

    @Test func aDeclaredLengthOverTheLimitFailsAtTheHeadWithoutWaitingForTheBody() async throws {
        // The server declares 2 MB, then stalls: only a transport that hands
        // the body over as it arrives lets the client refuse it now. One that
        // receives bodies whole would wait for ever (this test's time limit).
        let server = try LoopbackSocketServer(
            answerBytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n".utf8),
            holdOpen: true
        )
        defer { withExtendedLifetime(server) {} }
        let client = HTTPClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                maximumResponseSize: 1_000_000
            ),
            transport: URLSessionTransport()
        )
        await #expect {
            try await client.send(Request<Data>.get("/big"))
        } throws: { error in
            if case .responseTooLarge(limit: 1_000_000) = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func aStreamedBodyOverTheLimitIsRefused() async throws {
        // Chunked: no declared length, so only counting the bytes can tell.
        let chunk = [UInt8](repeating: 0x79, count: 65_536)
        var answer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
        for _ in 0..<32 {
            answer += Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        answer += Array("0\r\n\r\n".utf8)
        let server = try LoopbackSocketServer(answerBytes: answer)
        defer { withExtendedLifetime(server) {} }
        let client = HTTPClient(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
                maximumResponseSize: 1_000_000
            ),
            transport: URLSessionTransport()
        )
        await #expect {
            try await client.send(Request<Data>.get("/stream"))
        } throws: { error in
            if case .responseTooLarge(limit: 1_000_000) = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func theHeadArrivesBeforeTheBody() async throws {
        // Head and the first bytes, then a stall: the transport returns at the head.
        let server = try LoopbackSocketServer(
            answerBytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello".utf8),
            holdOpen: true
        )
        defer { withExtendedLifetime(server) {} }
        let transport = URLSessionTransport()
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/slow")
        request.headerFields[.accept] = "*/*"
        let (head, body) = try await transport.send(request, body: nil)
        #expect(head.status == .ok)
        #expect(body.knownLength == 10)
    }

    @Test func aSessionPassedInIsUsedAsItIs() async throws {
        let server = try LoopbackSocketServer(
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        )
        defer { withExtendedLifetime(server) {} }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = HTTPClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: URLSessionTransport(session: session)
        )
        #expect(try await client.send(Request<String>.get("/")).value == "ok")
    }

    @Test func aTruncatedBodyIsATransportError() async throws {
        let server = try LoopbackSocketServer(
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n0123456789"
        )
        defer { withExtendedLifetime(server) {} }
        let client = HTTPClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: URLSessionTransport()
        )
        await #expect {
            try await client.send(Request<Data>.get("/truncated"))
        } throws: { error in
            if case .transport = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func theTransportLeavesRedirectsToTheClient() async throws {
        let server = try LoopbackSocketServer(
            answer: "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 5\r\nConnection: close\r\n\r\nmoved"
        )
        defer { withExtendedLifetime(server) {} }
        var configuration = HTTPClient.Configuration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!)
        configuration.redirectPolicy = .never
        let client = HTTPClient(configuration: configuration, transport: URLSessionTransport())
        let response = try await client.send(Request<String>.get("/old").accepting(200..<400))
        #expect(response.status == .found)
        #expect(response.headerFields[.location] == "/elsewhere")
    }
}
