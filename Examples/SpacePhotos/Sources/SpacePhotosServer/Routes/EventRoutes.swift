import Foundation
import HTTPTypes
import Hummingbird

/// `GET /events`: the favourite-count feed (`PhotoMetadata` for
/// `URLSession.bytes(from:).lines`) as NDJSON, one `{"favoriteCount", "id", "title"}`
/// object per line; `?format=sse`, or `GET /events/sse`, sends it as
/// Server-Sent Events (`id:`, `event: favorite`, `data:`).
///
/// Parameters: `count` (default 20, 0…10,000) events; `interval`
/// milliseconds between them (0…2,000; default
/// ``ExampleServer/Configuration/eventInterval``); `from`, the index of the
/// first event (0…1,000,000). For SSE, a `Last-Event-ID` header resumes
/// after that event. The feed is deterministic (``FavoriteFeed``).
///
/// SSE only, for reconnecting clients: `retry` (0…60,000 ms) opens the stream
/// with a `retry:` field; `until` ends the feed before that event id, so a
/// request that would start at or past it gets 204 No Content (the way to
/// tell an `EventSource` to stop); `dropAfter` closes the connection
/// abruptly after that many events (a test knob: a dropped connection).
struct EventRoutes: Sendable {
    enum Format {
        case ndjson
        case serverSentEvents
    }

    let defaultInterval: Duration

    static let maximumCount = 10_000
    static let maximumInterval = 2_000
    static let maximumStart = 1_000_000

    func add(to router: Router<ServerRequestContext>) {
        router.get("events") { request, _ -> Response in
            let format: Format
            switch request.uri.queryParameters.get("format") {
            case nil, "ndjson": format = .ndjson
            case "sse": format = .serverSentEvents
            case let other?:
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "Unknown format \(other.prefix(32)): use ndjson or sse."
                )
            }
            return try stream(request, format: format)
        }
        router.get("events/sse") { request, _ -> Response in
            try stream(request, format: .serverSentEvents)
        }
    }

    func stream(_ request: Request, format: Format) throws -> Response {
        var count = try request.integerParameter("count", in: 0...Self.maximumCount) ?? 20
        let interval =
            try request.integerParameter("interval", in: 0...Self.maximumInterval)
            .map { Duration.milliseconds($0) } ?? defaultInterval
        var start = try request.integerParameter("from", in: 0...Self.maximumStart) ?? 0
        if format == .serverSentEvents,
            let lastID = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value
        {
            guard let last = Int(lastID.trimmingCharacters(in: .whitespaces)), (0..<Self.maximumStart).contains(last)
            else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "Last-Event-ID must be an event id this feed sent."
                )
            }
            start = last + 1
        }

        let retry = format == .serverSentEvents ? try request.integerParameter("retry", in: 0...60_000) : nil
        let until = format == .serverSentEvents ? try request.integerParameter("until", in: 0...Self.maximumStart) : nil
        let dropAfter =
            format == .serverSentEvents ? try request.integerParameter("dropAfter", in: 0...Self.maximumCount) : nil
        if let until {
            guard start < until else { return Response(status: .noContent) }
            count = min(count, until - start)
        }

        let headers: HTTPFields =
            switch format {
            case .ndjson: [.contentType: "application/x-ndjson", .cacheControl: "no-store"]
            case .serverSentEvents: [.contentType: "text/event-stream", .cacheControl: "no-store"]
            }
        let body = ResponseBody { [start, count] writer in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var feed = FavoriteFeed(startingAt: start)
            if format == .serverSentEvents {
                // A comment line: EventSource clients skip it; it shows the stream is open.
                try await writer.write(ByteBuffer(string: ": favourite counts\n\n"))
                if let retry { try await writer.write(ByteBuffer(string: "retry: \(retry)\n\n")) }
            }
            for sent in 0..<count {
                if let dropAfter, sent == dropAfter { throw DroppedConnection() }
                if sent > 0, interval > .zero { try await sleepUnlessShuttingDown(for: interval) }
                let id = feed.position
                let json = String(decoding: try encoder.encode(feed.next()), as: UTF8.self)
                let text =
                    switch format {
                    case .ndjson: json + "\n"
                    case .serverSentEvents: "id: \(id)\nevent: favorite\ndata: \(json)\n\n"
                    }
                try await writer.write(ByteBuffer(string: text))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Thrown mid-body by `?dropAfter=`: Hummingbird closes the connection.
    struct DroppedConnection: Error {}
}
