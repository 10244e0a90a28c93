import AsyncHTTPClient
import BaselineHTTP
import BaselineOpenAPI
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIURLSession
import SpacePhotosAPI

import class BaselineAsyncHTTPClient.AsyncHTTPClientTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client swift-openapi-generator writes for the example server (the
/// app's `SpacePhotosAPI`), one call (`GET /photos?date=…`, a ~500-byte
/// JSON object, decoded) on each transport: Baseline's `OpenAPITransport`
/// over either Baseline transport, with retry middleware, against the
/// runtime's own transports, swift-openapi-async-http-client and
/// swift-openapi-urlsession. The server runs in another process.
///
/// `baseline-benchmarks openapi`; OPENAPI_REQUESTS, OPENAPI_ROUNDS,
/// OPENAPI_CONCURRENCY (1,8,64), OPENAPI_VARIANTS (names, comma-separated,
/// by substring) narrow it.
enum OpenAPIBenchmarks {
    /// What the rows' `fetch` returns for a photo that decoded: the harness
    /// checks each answer against it.
    static var ok: Int { HTTPBenchmarks.expectedPayload }
    static let day = "2020-07-04"

    /// The rows, in the order ``makeVariants(baseURL:)`` makes them.
    static let rowNames = [
        "OpenAPI: Baseline/AsyncHTTPClientTransport",
        "OpenAPI: swift-openapi-async-http-client",
        "AsyncHTTPClient (raw, pool 64, no generated code)",
        "OpenAPI: Baseline/URLSessionTransport",
        "OpenAPI: swift-openapi-urlsession",
    ]

    /// (measured, reference): printed as a percentage of the reference.
    static let comparisons = [
        ("OpenAPI: Baseline/AsyncHTTPClientTransport", "OpenAPI: swift-openapi-async-http-client"),
        ("OpenAPI: Baseline/URLSessionTransport", "OpenAPI: swift-openapi-urlsession"),
        ("OpenAPI: swift-openapi-async-http-client", "AsyncHTTPClient (raw, pool 64, no generated code)"),
    ]

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let external = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:))
        let child = external == nil ? try BenchmarkServerProcess() : nil
        defer { child?.stop() }
        guard let baseURL = external ?? child?.baseURL, let port = baseURL.port else { return }
        print("OpenAPI (a generated client's GET /photos + JSON decode, server in another process)")
        let requestsPerRun = environment["OPENAPI_REQUESTS"].flatMap(Int.init) ?? 10_000
        let rounds = environment["OPENAPI_ROUNDS"].flatMap(Int.init) ?? 5
        let levels =
            environment["OPENAPI_CONCURRENCY"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1, 8, 64]
        let filter = environment["OPENAPI_VARIANTS"].map { $0.split(separator: ",").map(String.init) }
        for concurrency in levels {
            let variants = try makeVariants(baseURL: baseURL).filter { variant in
                filter.map { names in names.contains { variant.name.contains($0) } } ?? true
            }
            for variant in variants {
                _ = try await HTTPBenchmarks.measure(variant, requests: 200, concurrency: concurrency, port: port)
            }
            // Interleaved rounds, ratios taken within a round: see HTTPBenchmarks.
            var samples: [String: [HTTPBenchmarks.Throughput]] = [:]
            for _ in 0..<rounds {
                for variant in variants {
                    samples[variant.name, default: []].append(
                        try await HTTPBenchmarks.measure(
                            variant,
                            requests: requestsPerRun / rounds,
                            concurrency: concurrency,
                            port: port
                        )
                    )
                }
            }
            for variant in variants {
                guard let runs = samples[variant.name] else { continue }
                let result = HTTPBenchmarks.summary(of: runs)
                print(
                    "  c=\(String(concurrency).padding(toLength: 3, withPad: " ", startingAt: 0)) \(variant.name.padding(toLength: 50, withPad: " ", startingAt: 0)) \(result)"
                )
                try await variant.shutdown()
            }
            for (measured, reference) in comparisons {
                guard let a = samples[measured], let b = samples[reference], a.count == b.count else { continue }
                let ratios = zip(a, b).map { $0.requestsPerSecond / $1.requestsPerSecond }.sorted()
                print(
                    String(
                        format: "  c=%-3d %@ / %@: %.1f %% (rounds %.2f–%.2f)",
                        concurrency,
                        measured,
                        reference,
                        100 * ratios[ratios.count / 2],
                        ratios.first ?? 0,
                        ratios.last ?? 0
                    )
                )
            }
        }
        try allocations(baseURL: baseURL)
    }

    /// The rows, each with clients of its own.
    static func makeVariants(baseURL: URL) throws -> [HTTPBenchmarks.Variant] {
        let query = Operations.Photo.Input.Query(date: day)
        @Sendable func fetch(_ client: Client) async throws -> Int {
            try await client.photo(query: query).ok.body.json.date == day ? ok : -1
        }

        // Baseline: the generated client through an HTTPClient with retry
        // middleware (a retry costs nothing until a request fails).
        let ahcTransport = AsyncHTTPClientTransport()
        let baselineAHC = Client(
            serverURL: baseURL,
            transport: OpenAPITransport(
                client: BaselineHTTP.HTTPClient(
                    configuration: .init(baseURL: baseURL),
                    transport: ahcTransport,
                    middleware: [RetryMiddleware()]
                )
            )
        )
        let sessionConfiguration = BaselineHTTP.URLSessionTransport.defaultConfiguration()
        let baselineSession = Client(
            serverURL: baseURL,
            transport: OpenAPITransport(
                client: BaselineHTTP.HTTPClient(
                    configuration: .init(baseURL: baseURL),
                    transport: BaselineHTTP.URLSessionTransport(configuration: sessionConfiguration),
                    middleware: [RetryMiddleware()]
                )
            )
        )

        // The runtime's transports, on clients configured as Baseline's are
        // (a pool of 64 connections; URLSession's configuration).
        let ahc = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.configuration(maximumConnectionsPerHost: 64)
        )
        let openAPIAHC = Client(
            serverURL: baseURL,
            transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(configuration: .init(client: ahc))
        )
        let session = URLSession(configuration: sessionConfiguration)
        let openAPISession = Client(
            serverURL: baseURL,
            transport: OpenAPIURLSession.URLSessionTransport(configuration: .init(session: session))
        )

        // The same request with no generated code: what the runtime's own
        // encoding and decoding cost.
        var components = URLComponents(url: baseURL.appendingPathComponent("photos"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "date", value: day)]
        guard let photoURL = components?.url?.absoluteString else { throw BenchmarkError.setup("no photo URL") }
        let decoder = JSONDecoder()

        return [
            .init(name: rowNames[0], fetch: { try await fetch(baselineAHC) }),
            .init(name: rowNames[1], fetch: { try await fetch(openAPIAHC) }),
            .init(
                name: rowNames[2],
                fetch: {
                    let response = try await ahc.execute(HTTPClientRequest(url: photoURL), timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 1024 * 1024)
                    let photo = try decoder.decode(Components.Schemas.Photo.self, from: Data(body.readableBytesView))
                    return photo.date == day ? ok : -1
                }
            ),
            .init(name: rowNames[3], fetch: { try await fetch(baselineSession) }),
            .init(
                name: rowNames[4],
                fetch: { try await fetch(openAPISession) },
                shutdown: {
                    session.finishTasksAndInvalidate()
                    try await ahc.shutdown()
                    try await ahcTransport.shutdown()
                }
            ),
        ]
    }

    /// Heap allocations per request of each row, counted in a child process
    /// (`openapi-alloc-probe`) as the HTTP table counts them.
    static func allocations(baseURL: URL) throws {
        guard let library = try HTTPAllocationBenchmarks.mallocCountLibrary() else {
            print("  (allocations: no malloc-count library; set MALLOC_COUNT_LIBRARY or MALLOC_COUNT_SOURCE)")
            return
        }
        let (low, high) = (1_000, 4_000)
        print("OpenAPI allocations per request (malloc-count, \(low) vs \(high) requests, c=1)")
        for name in rowNames {
            let counts = try [low, high].map { requests in
                try HTTPAllocationBenchmarks.allocations(
                    ofChild: ["openapi-alloc-probe"],
                    environment: [
                        "BASELINE_SERVER_URL": baseURL.absoluteString,
                        "OPENAPI_PROBE_VARIANT": name,
                        "OPENAPI_PROBE_REQUESTS": String(requests),
                    ],
                    library: library
                )
            }
            let perRequest = Double(counts[1] - counts[0]) / Double(high - low)
            print(String(format: "  %@ %7.1f", name.padding(toLength: 50, withPad: " ", startingAt: 0), perRequest))
        }
    }

    /// Runs in the child: one row's requests, then `exit`, when malloc-count prints.
    static func probe() async throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let baseURL = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:)),
            let port = baseURL.port,
            let name = environment["OPENAPI_PROBE_VARIANT"],
            let requests = environment["OPENAPI_PROBE_REQUESTS"].flatMap(Int.init)
        else { throw BenchmarkError.setup("openapi-alloc-probe needs BASELINE_SERVER_URL and OPENAPI_PROBE_*") }
        let variants = try makeVariants(baseURL: baseURL)
        guard let variant = variants.first(where: { $0.name == name }) else {
            throw BenchmarkError.setup("no row named \(name)")
        }
        // The same warm-up in both runs: connections, caches, lazy globals.
        _ = try await HTTPBenchmarks.measure(variant, requests: 100, concurrency: 1, port: port)
        _ = try await HTTPBenchmarks.measure(variant, requests: requests, concurrency: 1, port: port)
        exit(0)
    }
}
