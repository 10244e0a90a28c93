import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("URLSessionTransport", .timeLimit(.minutes(1)))
struct URLSessionTransportTests {
    @Test func sendsARequestAndReturnsStatusHeadersAndBody() async throws {
        let server = try LoopbackSocketServer(
            answer: "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nX-Server: loop\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        )
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: URLSessionTransport())
        let response = try await client.send(Request<String>.post("/things", body: .data(Data("x".utf8))))
        #expect(response.status == .created)
        #expect(response.headerFields[HTTPField.Name("X-Server")!] == "loop")
        #expect(response.value == "hello")
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        let port = try LoopbackSocketServer.closedPort()
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: URLSessionTransport())
        await #expect {
            try await client.send(Request<Void>.get("/"))
        } throws: { error in
            if case .transport = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func cancellingTheTaskCancelsTheRequestInFlight() async throws {
        let server = try LoopbackSocketServer(answer: nil)
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: URLSessionTransport())
        let call = Task { try await client.send(Request<Data>.get("/never-answered")) }
        var received = server.requestReceived.makeAsyncIterator()
        #expect(await received.next() != nil)   // the request is on the server: in flight
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }
}
