import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("StubTransport", .timeLimit(.minutes(1)))
struct StubTransportTests {
    let transport = StubTransport()
    var client: HTTPClient { HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport) }

    @Test func recordsEveryRequestWithItsBody() async throws {
        transport.on(.post, "/echo", respond: .status(.noContent))
        try await client.send(Request<Void>.post("/echo", body: .data(Data("one".utf8), contentType: "text/plain")))
        try await client.send(Request<Void>.post("/echo", body: .data(Data("two".utf8), contentType: "text/plain")))
        #expect(transport.requests.map(\.body) == [Data("one".utf8), Data("two".utf8)])
        #expect(transport.requests.allSatisfy { $0.method == .post && $0.path == "/echo" })
    }

    @Test func scriptedResponsesComeInOrderThenRunOut() async throws {
        transport.on(.get, "/n", script: [.text("1"), .text("2")])
        #expect(try await client.send(Request<String>.get("/n")).value == "1")
        #expect(try await client.send(Request<String>.get("/n")).value == "2")
        await #expect {
            try await client.send(Request<String>.get("/n"))
        } throws: { error in
            guard case let .transport(underlying) = error as? HTTPClientError else { return false }
            return underlying as? StubTransportError == .scriptExhausted(method: .get, path: "/n")
        }
    }

    @Test func theLatestMatchingRouteWins() async throws {
        transport.on(.get, "/v", respond: .text("old"))
        transport.on(.get, "/v", respond: .text("new"))
        #expect(try await client.send(Request<String>.get("/v")).value == "new")
    }

    @Test func aHeldRequestAnswersWhenReleased() async throws {
        let held = transport.hold(.get, "/slow")
        let client = self.client
        let response = Task {
            try await client.send(Request<String>.get("/slow", query: [.init(name: "q", value: "1")]))
        }
        let call = try await held.nextCall()
        #expect(call.arguments.query == [URLQueryItem(name: "q", value: "1")])
        call.resume(returning: .text("released"))
        #expect(try await response.value.value == "released")
    }
}
