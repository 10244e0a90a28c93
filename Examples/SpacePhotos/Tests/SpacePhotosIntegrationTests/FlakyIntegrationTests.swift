import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("GET /flaky/{key}: fails on purpose, then succeeds", .timeLimit(.minutes(2)))
struct FlakyIntegrationTests {
    struct Success: Decodable, Equatable {
        var key: String
        var attempts: Int
    }

    @Test func theFirstNRequestsAre503WithRetryAfterThen200() async throws {
        try await withServer { server in
            let query = [URLQueryItem(name: "failures", value: "3"), URLQueryItem(name: "retryAfter", value: "7")]
            for attempt in 1...3 {
                let response = try await server.client.answer(.get("/flaky/photos", query: query))
                #expect(response.status == .serviceUnavailable, "attempt \(attempt)")
                #expect(response.headerFields[.retryAfter] == "7")
                #expect(response.serverError?.code == "unavailable")
            }
            let success = try await server.client.send(Request<Success>.get("/flaky/photos", query: query)).value
            #expect(success == Success(key: "photos", attempts: 4))
            // And it stays up.
            #expect(
                try await server.client.send(Request<Success>.get("/flaky/photos", query: query)).value.attempts == 5
            )
        }
    }

    @Test func theDefaultsAreTwoFailuresOneSecondApart() async throws {
        try await withServer { server in
            for _ in 0..<2 {
                let response = try await server.client.answer(.get("/flaky/defaults"))
                #expect(response.status == .serviceUnavailable)
                #expect(response.headerFields[.retryAfter] == "1")
            }
            #expect(try await server.client.answer(.get("/flaky/defaults")).status == .ok)
        }
    }

    @Test func keysAreCountedSeparately() async throws {
        try await withServer { server in
            let once = [URLQueryItem(name: "failures", value: "1")]
            #expect(try await server.client.answer(.get("/flaky/a", query: once)).status == .serviceUnavailable)
            #expect(try await server.client.answer(.get("/flaky/b", query: once)).status == .serviceUnavailable)
            #expect(try await server.client.answer(.get("/flaky/a", query: once)).status == .ok)
            let none = try await server.client.send(
                Request<Success>.get("/flaky/c", query: [URLQueryItem(name: "failures", value: "0")])
            ).value
            #expect(none.attempts == 1)
        }
    }

    @Test func pastTheKeyLimitTheOldestKeysAreForgotten() async throws {
        try await withServer({ $0.flakyKeyLimit = 2 }) { server in
            let once = [URLQueryItem(name: "failures", value: "1")]
            var statuses: [HTTPResponse.Status] = []
            for key in ["old", "newer", "newest", "old"] {
                statuses.append(try await server.client.answer(.get("/flaky/\(key)", query: once)).status)
            }
            // Each first attempt fails, and so does "old" again: it was
            // evicted when "newest" came, so its count started over.
            #expect(statuses == Array(repeating: .serviceUnavailable, count: 4))
        }
    }

    @Test(arguments: [("failures", "101"), ("failures", "-1"), ("retryAfter", "3601"), ("retryAfter", "soon")])
    func outOfRangeParametersAreBadRequests(name: String, value: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/flaky/k", query: [URLQueryItem(name: name, value: value)])
            )
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }
}
