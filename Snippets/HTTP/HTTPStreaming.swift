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
/// Follows a Server-Sent Events stream, and picks up where it left off when the connection drops.
func follow(_ path: String, lastEventID: String? = nil) async throws -> String? {
    var request = Request<Void>.get(path).header(.accept, "text/event-stream")
    if let lastEventID {
        request = request.header(HTTPField.Name("Last-Event-ID")!, lastEventID)
    }
    let events = try await client.stream(request)
    var lastSeen = lastEventID
    for try await event in events.body.serverSentEvents() {
        lastSeen = event.id ?? lastSeen
        switch event.event {
        case "favourite":
            let update = try event.decode(PhotoMetadata.self)
            print(update.id, update.favoriteCount)
        case "bye":
            return nil
        default:
            continue  // an event this version does not know
        }
    }
    // The server closed the stream: the caller reconnects from `lastSeen`.
    return lastSeen
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
_ = try await follow("/events")
