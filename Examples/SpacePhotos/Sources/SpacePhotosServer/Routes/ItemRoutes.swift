import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// `GET /json/items?count=N`: a JSON array of `N` small objects (default 20,
/// at most 1,000), the same every time — the payload of the HTTP benchmarks
/// (a GET plus a JSON decode).
///
/// Each document is encoded once and kept, so the benchmark measures HTTP
/// and decoding, not the server's encoder. The cache holds at most
/// ``cacheLimit`` sizes, so odd counts cannot grow it without limit.
struct ItemRoutes: Sendable {
    struct Item: Codable, Sendable {
        var id: Int
        var name: String
        var score: Double
        var isFeatured: Bool
        var tags: [String]
    }

    static let maximumCount = 1_000
    static let cacheLimit = 32

    private let cache = NIOLockedValueBox<[Int: ByteBuffer]>([:])

    func add(to router: Router<ServerRequestContext>) {
        router.get("json/items") { request, _ -> Response in
            let count = try request.integerParameter("count", in: 0...Self.maximumCount) ?? 20
            let body = try document(count: count)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: body)
            )
        }
    }

    /// The `index`-th item: varied enough to look like data, fixed so every run is the same.
    static func item(at index: Int) -> Item {
        let number = index + 1
        let score = Double((index * 37) % 1_000) / 10
        let parity = index.isMultiple(of: 2) ? "even" : "odd"
        return Item(
            id: number,
            name: "Item \(number)",
            score: score,
            isFeatured: index % 5 == 0,
            tags: ["space", parity]
        )
    }

    /// The encoded array of `count` items: a copy of a shared buffer, which
    /// copies no bytes.
    func document(count: Int) throws -> ByteBuffer {
        if let cached = cache.withLockedValue({ $0[count] }) { return cached }
        let items = (0..<count).map(Self.item(at:))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let buffer = ByteBuffer(bytes: try encoder.encode(items))
        cache.withLockedValue { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[count] = buffer
        }
        return buffer
    }
}
