// Reading a response as it arrives: lines, NDJSON and Server-Sent Events.

// snippet.hide
import BaselineHTTP
import Foundation
import HTTPTypes

let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:8080")!)

// snippet.show
// snippet.ndjson
/// One line of the favourites feed: `{"id":"…","favoriteCount":12}`.
struct PhotoMetadata: Decodable, Sendable {
    var id: String
    var favoriteCount: Int
}

var favourites: [String: Int] = [:]

// Returns at the response head; the loop then reads the body line by line.
let feed = try await client.stream(Request<Void>.get("/photos/favourites"))
for try await update in feed.body.jsonLines(of: PhotoMetadata.self) {
    favourites[update.id] = update.favoriteCount
}
// snippet.end

// snippet.sse
// Reconnects as a browser's EventSource does: after a drop it waits (3 s, or
// the server's `retry:`) and asks for what it missed with Last-Event-ID.
// A 204 from the server ends the loop; an HTTP error throws.
for try await event in client.serverSentEvents(Request<Void>.get("/events/sse")) {
    switch event.event {
    case "favorite":
        let update = try event.decode(PhotoMetadata.self)
        print(update.id, update.favoriteCount)
    default:
        continue  // an event this version does not know
    }
}
// snippet.end

// snippet.sse-once
/// One connection, no reconnection: the loop ends when the stream does.
func readOnce(_ path: String) async throws -> [ServerSentEvent] {
    let events = try await client.stream(Request<Void>.get(path).header(.accept, "text/event-stream"))
    var received: [ServerSentEvent] = []
    for try await event in events.body.serverSentEvents() { received.append(event) }
    return received
}
// snippet.end

// snippet.early
// Leaving the loop stops the transfer: the rest of the body is never downloaded.
let log = try await client.stream(Request<Void>.get("/logs/today"))
var firstErrors: [String] = []
for try await line in log.body.lines() where line.contains("ERROR") {
    firstErrors.append(line)
    if firstErrors.count == 10 { break }
}
// snippet.end

// snippet.hide
_ = try await readOnce("/events/sse")
