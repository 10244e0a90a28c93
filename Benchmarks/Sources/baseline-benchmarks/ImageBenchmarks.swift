import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineStore
import BaselineTesting
import DirectImageDecoding
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer

/// Issue 6's figures: decoding against libpng/libjpeg called directly on the
/// same files, 1,000 pipeline requests over 100 URLs, memory-cache hits, and
/// a 50-photo catalog loaded end to end with its images. The example server
/// runs in this process.
enum ImageBenchmarks {
    struct Entry: Decodable, Sendable {
        var name: String
        var width: Int
        var height: Int
        var mediaType: String
        var pixels: Int { width * height }
    }

    static func run() async throws {
        let server = try await ExampleServer().start()
        defer { Task { await server.stop() } }
        let client = HTTPClient(baseURL: server.baseURL)
        let entries = try await client.send(Request<[Entry]>.get("/images")).value
        print("Images (\(entries.count) served by the example server in this process)")
        try await decoding(entries, client: client)
        try await pipelineRequests(entries, baseURL: server.baseURL)
        try await memoryCacheHits(entries, baseURL: server.baseURL)
        try await catalog(baseURL: server.baseURL)
    }

    // MARK: Decoding

    static func decoding(_ entries: [Entry], client: HTTPClient) async throws {
        let png = entries.filter { $0.mediaType == "image/png" }.sorted { $0.pixels < $1.pixels }
        let jpeg = entries.filter { $0.mediaType == "image/jpeg" }.sorted { $0.pixels < $1.pixels }
        let cases: [(Entry, any ImageDecoding, Direct)] = [
            png.first.map { ($0, PNGDecoder(), Direct.png) }, png.last.map { ($0, PNGDecoder(), Direct.png) },
            jpeg.first.map { ($0, JPEGDecoder(), Direct.jpeg) }, jpeg.last.map { ($0, JPEGDecoder(), Direct.jpeg) },
        ].compactMap { $0 }
        for (entry, decoder, direct) in cases {
            let data = try await client.send(Request<Data>.get("/images/\(entry.name)")).value
            let iterations = entry.pixels > 1_000_000 ? 15 : 60
            let ours = try await Measurement.run(
                "decode \(entry.name) \(entry.width)×\(entry.height) BaselineImages",
                iterations: iterations,
                setUp: {}
            ) {
                _ = try decoder.decode(data, limits: ImageDecodingLimits())
            }
            let theirs = try await Measurement.run(
                "decode \(entry.name) \(entry.width)×\(entry.height) lib\(direct) direct",
                iterations: iterations,
                setUp: {}
            ) {
                try direct.decode(data)
            }
            print(ours.report())
            print(
                theirs.report()
                    + String(format: "  → BaselineImages %.2f× (target ≤ 1.2×)", ratio(ours.median, theirs.median))
            )
        }
        if let large = jpeg.last {
            try await thumbnails(of: large, client: client)
        }
        // What a phone photo's EXIF orientation adds to its decode.
        if let large = jpeg.last {
            let data = try await client.send(Request<Data>.get("/images/\(large.name)")).value
            let image = try JPEGDecoder().decode(data, limits: ImageDecodingLimits())
            var sink: UInt8 = 0
            let turn = try await Measurement.run(
                "turn \(large.width)×\(large.height) upright (EXIF 6, a quarter turn)",
                iterations: 15,
                setUp: {}
            ) {
                sink ^= image.oriented(.right).pixels[image.byteCount / 2]
            }
            print(turn.report() + (sink == 0 ? "" : " "))
        }
    }

    /// A 300-pixel thumbnail of the largest JPEG: decoded at libjpeg's 1/8
    /// scale, against a full decode shrunk afterwards. Rounds interleaved,
    /// as the machine's speed drifts.
    static func thumbnails(of entry: Entry, client: HTTPClient) async throws {
        let data = try await client.send(Request<Data>.get("/images/\(entry.name)")).value
        let size = 300
        var scaled: [Measurement] = []
        var whole: [Measurement] = []
        for _ in 0..<3 {
            scaled.append(
                try await Measurement.run("thumbnail", iterations: 20, setUp: {}) {
                    _ = try JPEGDecoder().decode(data, limits: ImageDecodingLimits(), maximumPixelSize: size)
                }
            )
            whole.append(
                try await Measurement.run("whole", iterations: 5, setUp: {}) {
                    _ = try JPEGDecoder().decode(data, limits: ImageDecodingLimits()).resized(toFit: size)
                }
            )
        }
        let thumbnail = try JPEGDecoder().decode(data, limits: ImageDecodingLimits(), maximumPixelSize: size)
        let scaledMedian = scaled.map(\.median).sorted()[1]
        let wholeMedian = whole.map(\.median).sorted()[1]
        print(
            "\(size)-pixel thumbnail of \(entry.name) \(entry.width)×\(entry.height): decoded at 1/8 scale \(format(scaledMedian)),"
                + " whole then resized \(format(wholeMedian))"
                + String(format: "  → %.1f× faster (target ≥ 5×)", ratio(wholeMedian, scaledMedian))
        )
        print(
            "  pixel memory: \(thumbnail.width)×\(thumbnail.height) = \(thumbnail.byteCount / 1_000) kB decoded,"
                + " against \(entry.width * entry.height * 4 / 1_000) kB for the whole image"
        )
    }

    enum Direct: CustomStringConvertible {
        case png, jpeg
        var description: String { self == .png ? "png" : "jpeg" }

        struct Failed: Error {}

        func decode(_ data: Data) throws {
            var width: Int32 = 0
            var height: Int32 = 0
            let pixels = data.withUnsafeBytes { bytes -> UnsafeMutablePointer<UInt8>? in
                let base = bytes.bindMemory(to: UInt8.self).baseAddress
                return self == .png
                    ? direct_png_decode(base, bytes.count, &width, &height)
                    : direct_jpeg_decode(base, bytes.count, &width, &height)
            }
            guard let pixels else { throw Failed() }
            direct_free(pixels)
        }
    }

    // MARK: The pipeline

    /// The small images, each under 100 URLs (a query the server ignores
    /// makes each URL distinct), requested 10 times each, all at once, in a
    /// shuffled order.
    static func pipelineRequests(_ entries: [Entry], baseURL: URL) async throws {
        let urls = distinctURLs(entries, baseURL: baseURL, count: 100)
        var downloads = 0
        let measurement = try await Measurement.run(
            "1,000 image(for:) over 100 URLs, all concurrent",
            iterations: 5,
            warmup: 1,
            setUp: {
                let counter = RecordingMiddleware()
                var configuration = ImagePipeline.Configuration()
                configuration.memoryCacheLimit = 1 << 30
                return (
                    counter,
                    ImagePipeline(
                        client: HTTPClient(baseURL: baseURL, middleware: [counter]),
                        configuration: configuration
                    )
                )
            }
        ) { context in
            let (counter, pipeline) = context
            let requests = (0..<1_000).map { urls[$0 % urls.count] }.shuffled()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for url in requests {
                    group.addTask { _ = try await pipeline.image(for: url) }
                }
                try await group.waitForAll()
            }
            downloads = counter.count
        }
        print(measurement.report() + "  downloads: \(downloads) (target: exactly 100)")
    }

    static func memoryCacheHits(_ entries: [Entry], baseURL: URL) async throws {
        let url = distinctURLs(entries, baseURL: baseURL, count: 1)[0]
        let pipeline = ImagePipeline(client: HTTPClient(baseURL: baseURL))
        _ = try await pipeline.image(for: url)
        let calls = 100_000
        let asynchronous = try await Measurement.run(
            "memory-cache hit, image(for:) ×\(calls)",
            iterations: 5,
            setUp: {}
        ) {
            for _ in 0..<calls { _ = try await pipeline.image(for: url) }
        }
        let synchronous = try await Measurement.run(
            "memory-cache hit, cachedImage(for:) ×\(calls)",
            iterations: 5,
            setUp: {}
        ) {
            for _ in 0..<calls { _ = pipeline.cachedImage(for: url) }
        }
        for measurement in [asynchronous, synchronous] {
            let perCall =
                Double(measurement.median.components.attoseconds) / 1e9 / Double(calls)
                + Double(measurement.median.components.seconds) * 1e9 / Double(calls)
            print(measurement.report() + String(format: "  → %.0f ns per hit", perCall))
        }
    }

    static func distinctURLs(_ entries: [Entry], baseURL: URL, count: Int) -> [URL] {
        let small = entries.filter { $0.pixels <= 640 * 480 }.map(\.name)
        let names = small.isEmpty ? entries.map(\.name) : small
        return (0..<count).compactMap { index in
            var components = URLComponents(
                url: baseURL.appendingPathComponent("images/\(names[index % names.count])"),
                resolvingAgainstBaseURL: false
            )
            components?.queryItems = [URLQueryItem(name: "copy", value: String(index))]
            return components?.url
        }
    }

    // MARK: The catalog

    /// 50 photos fetched 8 at a time, then all their images through a fresh
    /// pipeline (no cache), decoded.
    @MainActor
    static func catalog(baseURL: URL) async throws {
        let client = HTTPClient(baseURL: baseURL)
        let api = PhotoAPI(client: client)
        let days = try await api.randomDates(count: 50, seed: 2026)
        var shown = 0
        let measurement = try await Measurement.run(
            "50-photo catalog: entries, then every image decoded",
            iterations: 5,
            warmup: 1,
            setUp: {
                Store(initialState: PhotoCatalog.State()) {
                    PhotoCatalog(
                        source: PhotoSource(
                            randomDates: { _ in PhotoSource.Days(days) },
                            photo: { try await api.photo(on: $0) }
                        ),
                        count: 50,
                        maximumConcurrentFetches: 8
                    )
                }
            }
        ) { catalog in
            await catalog.send(.updateItems).finish()
            let pipeline = ImagePipeline(client: client)
            shown = try await withThrowingTaskGroup(of: Int.self) { group in
                for photo in catalog.items {
                    group.addTask { try await pipeline.image(for: photo.url).width > 0 ? 1 : 0 }
                }
                var count = 0
                for try await shown in group { count += shown }
                return count
            }
        }
        print(measurement.report() + "  (\(shown) images)")
    }
}
