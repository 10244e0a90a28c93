import BaselineHTTP
import Clocks
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

/// `HTTPClient.serverSentEvents` against the example server's feed, which
/// drops the connection every few events: the client reconnects with
/// `Last-Event-ID`, misses nothing, repeats nothing, and stops at the 204.
@Suite("Server-Sent Events that reconnect (real server, both transports)", .timeLimit(.minutes(2)))
struct EventSourceIntegrationTests {
    @Test(arguments: TransportKind.allCases)
    func droppedConnectionsLoseNoEventAndA204EndsTheStream(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = HTTPClient(baseURL: server.baseURL, transport: transport)
                // The clock stands for time: waits end at once, and its `now` adds them up.
                let clock = ImmediateClock()
                let start = clock.now
                let query = ["count": "100", "interval": "0", "dropAfter": "3", "until": "10", "retry": "5"]
                let request = Request<Void>.get(
                    "/events/sse",
                    query: query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
                )
                var ids: [String] = []
                var counts: [Int] = []
                for try await event in client.serverSentEvents(request, reconnection: .init(clock: clock)) {
                    ids.append(event.id ?? "")
                    counts.append(try event.decode(PhotoMetadata.self).favoriteCount)
                }
                #expect(ids == (0..<10).map(String.init))
                // The same feed read in one go: nothing missed or repeated.
                let whole = try await client.stream(
                    Request<Void>.get(
                        "/events/sse",
                        query: [.init(name: "count", value: "10"), .init(name: "interval", value: "0")]
                    )
                )
                var expected: [Int] = []
                for try await event in whole.body.serverSentEvents() {
                    expected.append(try event.decode(PhotoMetadata.self).favoriteCount)
                }
                #expect(counts == expected)
                // At least 3 drops and the end at event 10, each followed by the server's 5 ms.
                let waited = start.duration(to: clock.now)
                #expect(waited >= .milliseconds(20))
                #expect(waited.components.attoseconds % 5_000_000_000_000_000 == 0)
            }
        }
    }
}
