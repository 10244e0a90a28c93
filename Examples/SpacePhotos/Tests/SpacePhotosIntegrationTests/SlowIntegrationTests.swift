import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("GET /slow?ms=N: a deliberately slow answer", .timeLimit(.minutes(2)))
struct SlowIntegrationTests {
    struct Answer: Decodable {
        var milliseconds: Int
    }

    @Test func itAnswersAfterTheDelay() async throws {
        try await withServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let answer = try await server.client.send(
                Request<Answer>.get("/slow", query: [URLQueryItem(name: "ms", value: "50")])
            ).value
            #expect(answer.milliseconds == 50)
            #expect(clock.now - start >= .milliseconds(50))
        }
    }

    @Test func aRequestCancelledWhileTheServerWaitsEndsWithCancellationError() async throws {
        let events = ServerLogEvents()
        try await withServer({ $0.logger = events.logger() }) { server in
            let client = server.client
            let request = Task {
                try await client.send(Request<Answer>.get("/slow", query: [URLQueryItem(name: "ms", value: "10000")]))
            }
            // In flight: the server has the request and is waiting.
            try await events.first(containing: "Slow answer: waiting")
            request.cancel()
            await #expect(throws: CancellationError.self) { try await request.value }
        }
    }

    @Test(arguments: ["10001", "-1", "soon"])
    func anOutOfRangeDelayIsABadRequest(ms: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(.get("/slow", query: [URLQueryItem(name: "ms", value: ms)]))
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }
}
