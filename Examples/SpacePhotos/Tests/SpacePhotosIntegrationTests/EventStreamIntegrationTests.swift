import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

@Suite("GET /events: favourite counts as NDJSON and Server-Sent Events", .timeLimit(.minutes(2)))
struct EventStreamIntegrationTests {
    /// One Server-Sent Event, as a client's parser would hand it over.
    struct ServerSentEvent: Equatable {
        var id: String?
        var event: String?
        var data: String
    }

    /// A minimal SSE parser (WHATWG HTML §9.2.6): fields until a blank line,
    /// comments (`:`) skipped, `data` lines joined with "\n".
    static func parseEvents(_ text: String) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var id: String?
        var event: String?
        var data: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                if !data.isEmpty {
                    events.append(ServerSentEvent(id: id, event: event, data: data.joined(separator: "\n")))
                }
                id = nil
                event = nil
                data = []
                continue
            }
            if line.hasPrefix(":") { continue }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1].hasPrefix(" ") ? parts[1].dropFirst() : parts[1]) : ""
            switch parts[0] {
            case "id": id = value
            case "event": event = value
            case "data": data.append(value)
            default: break
            }
        }
        return events
    }

    static func lines(_ body: String) -> [String] {
        body.split(separator: "\n").map(String.init)
    }

    @Test func theNDJSONStreamIsCountedLinesOfPhotoMetadata() async throws {
        try await withServer { server in
            let response = try await server.client.send(
                Request<String>.get("/events", query: [URLQueryItem(name: "count", value: "25")])
            )
            #expect(response.headerFields[.contentType] == "application/x-ndjson")
            #expect(response.value.hasSuffix("\n"))
            let events = try Self.lines(response.value).map {
                try JSONDecoder().decode(PhotoMetadata.self, from: Data($0.utf8))
            }
            #expect(events.count == 25)
            // Each photo's count only goes up.
            var last: [String: Int] = [:]
            for event in events {
                #expect(event.favoriteCount > last[event.id, default: 0], "\(event.id)")
                last[event.id] = event.favoriteCount
                #expect(!event.title.isEmpty)
            }
            #expect(last.count > 1)
        }
    }

    @Test func theFeedIsDeterministicAndResumable() async throws {
        try await withServer { server in
            func events(_ query: [URLQueryItem]) async throws -> [PhotoMetadata] {
                try Self.lines(try await server.client.send(Request<String>.get("/events", query: query)).value)
                    .map { try JSONDecoder().decode(PhotoMetadata.self, from: Data($0.utf8)) }
            }
            let all = try await events([URLQueryItem(name: "count", value: "30")])
            #expect(try await events([URLQueryItem(name: "count", value: "30")]) == all)
            let tail = try await events([
                URLQueryItem(name: "count", value: "20"), URLQueryItem(name: "from", value: "10"),
            ])
            #expect(tail == Array(all[10...]))
            // The default count, and a paced stream (1 ms apart) gives the same events.
            let paced = try await events([URLQueryItem(name: "interval", value: "1")])
            #expect(paced == Array(all.prefix(20)))
        }
    }

    @Test func theSSEStreamHasIdsEventNamesAndData() async throws {
        try await withServer { server in
            let ndjson = try await server.client.send(
                Request<String>.get("/events", query: [URLQueryItem(name: "count", value: "5")])
            ).value
            for path in ["/events/sse", "/events"] {
                let query =
                    [URLQueryItem(name: "count", value: "5")]
                    + (path == "/events" ? [URLQueryItem(name: "format", value: "sse")] : [])
                let response = try await server.client.send(Request<String>.get(path, query: query))
                #expect(response.headerFields[.contentType] == "text/event-stream")
                let events = Self.parseEvents(response.value)
                #expect(events.map(\.id) == ["0", "1", "2", "3", "4"])
                #expect(events.allSatisfy { $0.event == "favorite" })
                // The same events as the NDJSON stream.
                #expect(events.map(\.data) == Self.lines(ndjson))
                _ = try events.map { try JSONDecoder().decode(PhotoMetadata.self, from: Data($0.data.utf8)) }
            }
        }
    }

    @Test func lastEventIDResumesAfterThatEvent() async throws {
        try await withServer { server in
            let lastEventID = try #require(HTTPField.Name("Last-Event-ID"))
            let first = Self.parseEvents(
                try await server.client.send(
                    Request<String>.get("/events/sse", query: [URLQueryItem(name: "count", value: "6")])
                ).value
            )
            let resumed = Self.parseEvents(
                try await server.client.send(
                    Request<String>.get(
                        "/events/sse",
                        query: [URLQueryItem(name: "count", value: "3")],
                        headerFields: [lastEventID: "2"]
                    )
                ).value
            )
            #expect(resumed == Array(first[3...]))
        }
    }

    @Test(arguments: [
        ("count", "10001"), ("count", "-1"), ("count", "many"), ("interval", "2001"), ("interval", "-5"),
        ("from", "1000001"), ("format", "xml"),
    ])
    func outOfRangeParametersAreBadRequests(name: String, value: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/events", query: [URLQueryItem(name: name, value: value)])
            )
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }

    @Test func aBadLastEventIDIsABadRequest() async throws {
        try await withServer { server in
            let lastEventID = try #require(HTTPField.Name("Last-Event-ID"))
            let response = try await server.client.answer(.get("/events/sse", headerFields: [lastEventID: "yesterday"]))
            #expect(response.status == .badRequest)
        }
    }
}
