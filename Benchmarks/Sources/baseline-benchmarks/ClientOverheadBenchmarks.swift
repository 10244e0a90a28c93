import BaselineHTTP
import Foundation
import HTTPTypes

/// Baseline's own per-request CPU cost, without a network: `HTTPClient.send`
/// through a transport that answers at once, against decoding the same body
/// directly. What is left of the gap to a raw client in the HTTP figures is
/// the transport's, not the client's.
enum ClientOverheadBenchmarks {
    struct InstantTransport: HTTPTransport {
        let body: Data
        let streamed: Bool

        func send(_ request: HTTPRequest, body _: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
            let head = HTTPResponse(
                status: .ok,
                headerFields: [.contentType: "application/json", .contentLength: String(body.count)]
            )
            if streamed {
                // As the transports hand over a body: one chunk of a stream.
                return (
                    head,
                    HTTPBody(
                        AsyncStream { continuation in
                            continuation.yield(body)
                            continuation.finish()
                        },
                        length: body.count
                    )
                )
            }
            return (head, HTTPBody(body))
        }
    }

    static func run() async throws {
        let items = (0..<20).map { index in
            HTTPBenchmarks.Item(
                id: index,
                name: "Item \(index)",
                score: Double(index) * 1.5,
                isFeatured: index % 3 == 0,
                tags: ["space", "photo"]
            )
        }
        let body = try JSONEncoder().encode(items.map(EncodableItem.init))
        let decoder = JSONDecoder()
        let request = Request<[HTTPBenchmarks.Item]>.get(
            "/json/items",
            query: [URLQueryItem(name: "count", value: "20")]
        )
        let baseURL = URL(fileURLWithPath: "/").deletingLastPathComponent()
        let base = URL(string: "http://127.0.0.1:8080") ?? baseURL
        let buffered = HTTPClient(baseURL: base, transport: InstantTransport(body: body, streamed: false))
        let streamed = HTTPClient(baseURL: base, transport: InstantTransport(body: body, streamed: true))
        let count = 5_000
        print("HTTP client overhead (no network; \(body.count)-byte JSON body of 20 items, ×\(count))")
        // Interleaved rounds, fastest kept: the differences are a few
        // microseconds, and this VM's speed drifts by more than that between
        // one measurement and the next.
        let variants: [(String, () async throws -> Void)] = [
            (
                "JSONDecoder alone",
                { for _ in 0..<count { _ = try decoder.decode([HTTPBenchmarks.Item].self, from: body) } }
            ),
            ("HTTPClient.send, body in memory", { for _ in 0..<count { _ = try await buffered.send(request) } }),
            (
                "HTTPClient.send, body streamed in one chunk",
                { for _ in 0..<count { _ = try await streamed.send(request) } }
            ),
            ("makeHTTPRequest alone", { for _ in 0..<count { _ = try buffered.makeHTTPRequest(request) } }),
        ]
        var fastest = [Duration](repeating: .seconds(3_600), count: variants.count)
        let clock = ContinuousClock()
        for _ in 0..<9 {
            for (index, variant) in variants.enumerated() {
                let elapsed = try await clock.measure { try await variant.1() }
                fastest[index] = min(fastest[index], elapsed)
            }
        }
        let decodeAlone = seconds(fastest[0]) * 1e6 / Double(count)
        for (index, variant) in variants.enumerated() {
            let perRequest = seconds(fastest[index]) * 1e6 / Double(count)
            let extra =
                index == 1 || index == 2
                ? String(format: "  (+%.1f µs over decoding alone)", perRequest - decodeAlone) : ""
            print(
                "\(variant.0.padding(toLength: 52, withPad: " ", startingAt: 0)) fastest of 9: "
                    + String(format: "%.2f µs per request", perRequest) + extra
            )
        }
    }

    struct EncodableItem: Encodable {
        var id: Int, name: String, score: Double, isFeatured: Bool, tags: [String]
        init(_ item: HTTPBenchmarks.Item) {
            (id, name, score, isFeatured, tags) = (item.id, item.name, item.score, item.isFeatured, item.tags)
        }
    }
}
