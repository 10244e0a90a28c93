import Foundation

/// Heap allocations per request for each HTTP client row, counted, not
/// timed: counts do not drift with the machine's load.
///
/// Each row runs in a child process of this benchmark (`http-alloc-probe`)
/// with `malloc-count` preloaded, against the server in this process (so,
/// for the child, in another process), twice: for `low` and for `high`
/// requests. The difference of the two totals divided by the difference of
/// the request counts is the cost of one request; start-up, warm-up and
/// shutdown cancel out.
///
/// `MALLOC_COUNT_LIBRARY` names a built `malloc-count.so`; otherwise the
/// benchmark builds one from `MALLOC_COUNT_SOURCE` (by default the shared
/// tool's `../shared/tools/malloc-count/malloc-count.c`) with `cc`. Without
/// either, the table is skipped with a note.
enum HTTPAllocationBenchmarks {
    /// Rows compared with their raw client, and the allowance the target gives each.
    /// The gzip rows have no target: they show what inflating costs each client.
    /// The raw rows sending Baseline's default header fields too: the same
    /// request on the wire. Shown beside the targets, which are against the plain rows.
    static let sameRequestPairs = [
        ("Baseline/URLSessionTransport", "URLSession (raw, data delegate, same headers)"),
        ("Baseline/AsyncHTTPClientTransport", "AsyncHTTPClient (raw, pool 64, same headers)"),
    ]

    static let pairs: [(baseline: String, raw: String, allowance: Double?)] = [
        ("Baseline/URLSessionTransport", "URLSession (raw, data delegate)", 10),
        ("Baseline/AsyncHTTPClientTransport", "AsyncHTTPClient (raw, pool 64)", 5),
        ("gzip: Baseline/URLSessionTransport", "gzip: URLSession (raw, data delegate)", nil),
        ("gzip: Baseline/AsyncHTTPClientTransport", "gzip: AsyncHTTPClient (raw, pool 64)", nil),
    ]

    static func run(baseURL: URL) throws {
        guard let library = try mallocCountLibrary() else {
            print("  (allocations: no malloc-count library; set MALLOC_COUNT_LIBRARY or MALLOC_COUNT_SOURCE)")
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let low = environment["HTTP_ALLOC_LOW"].flatMap(Int.init) ?? 1_000
        let high = environment["HTTP_ALLOC_HIGH"].flatMap(Int.init) ?? 4_000
        let levels =
            environment["HTTP_ALLOC_CONCURRENCY"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1]
        for concurrency in levels {
            print(
                "HTTP allocations per request (malloc-count, \(low) vs \(high) requests, c=\(concurrency), server in another process)"
            )
            var perRequest: [String: Double] = [:]
            let rows = pairs.map { ($0.baseline, $0.raw) } + sameRequestPairs
            for (baseline, raw) in rows {
                for name in [raw, baseline] where perRequest[name] == nil {
                    let few = try count(
                        name,
                        requests: low,
                        concurrency: concurrency,
                        baseURL: baseURL,
                        library: library
                    )
                    let many = try count(
                        name,
                        requests: high,
                        concurrency: concurrency,
                        baseURL: baseURL,
                        library: library
                    )
                    let value = Double(many - few) / Double(high - low)
                    perRequest[name] = value
                    print(String(format: "  %@ %7.1f", name.padding(toLength: 36, withPad: " ", startingAt: 0), value))
                }
            }
            // HTTP_ALLOC_EXTRA_ROWS: more rows by name (the HTTP_DIAGNOSTICS halfway points, say).
            let extra = environment["HTTP_ALLOC_EXTRA_ROWS"].map { $0.split(separator: ",").map(String.init) } ?? []
            for name in extra {
                let few = try count(name, requests: low, concurrency: concurrency, baseURL: baseURL, library: library)
                let many = try count(name, requests: high, concurrency: concurrency, baseURL: baseURL, library: library)
                print(
                    String(
                        format: "  %@ %7.1f",
                        name.padding(toLength: 36, withPad: " ", startingAt: 0),
                        Double(many - few) / Double(high - low)
                    )
                )
            }
            for (baseline, raw) in sameRequestPairs {
                guard let measured = perRequest[baseline], let reference = perRequest[raw] else { continue }
                print(
                    String(
                        format: "  %@ − raw with the same header fields: %+.1f allocations per request",
                        baseline,
                        measured - reference
                    )
                )
            }
            for (baseline, raw, allowance) in pairs {
                guard let measured = perRequest[baseline], let reference = perRequest[raw] else { continue }
                let extra = measured - reference
                let verdict = allowance.map { String(format: "target ≤ +%.0f: %@", $0, extra <= $0 ? "met" : "missed") }
                print(
                    String(
                        format: "  %@ − raw: %+.1f allocations per request (%@)",
                        baseline,
                        extra,
                        verdict ?? "no target"
                    )
                )
            }
        }
    }

    /// The whole child process's allocation count for `requests` fetches of row `name`.
    static func count(_ name: String, requests: Int, concurrency: Int, baseURL: URL, library: String) throws -> Int {
        try allocations(
            ofChild: ["http-alloc-probe"],
            environment: [
                "BASELINE_SERVER_URL": baseURL.absoluteString,
                "HTTP_PROBE_VARIANT": name,
                "HTTP_PROBE_REQUESTS": String(requests),
                "HTTP_PROBE_CONCURRENCY": String(concurrency),
            ],
            library: library
        )
    }

    /// The whole allocation count of this benchmark run as a child with
    /// `arguments`, `malloc-count` preloaded; the child must end through `exit`.
    static func allocations(
        ofChild arguments: [String],
        environment extra: [String: String] = [:],
        library: String
    )
        throws -> Int
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["LD_PRELOAD"] = library
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = output.split(separator: "\n").last(where: { $0.hasPrefix("MALLOCS total=") }),
            let total = Int(line.dropFirst("MALLOCS total=".count).prefix { $0.isNumber })
        else {
            throw BenchmarkError.setup("the allocation probe \(arguments) \(extra) failed: \(output.suffix(500))")
        }
        return total
    }

    /// Runs in the child: `HTTP_PROBE_REQUESTS` fetches of one row, then exits
    /// through `exit`, which is when malloc-count prints.
    static func probe() async throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let baseURL = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:)),
            let name = environment["HTTP_PROBE_VARIANT"],
            let requests = environment["HTTP_PROBE_REQUESTS"].flatMap(Int.init),
            let port = baseURL.port
        else { throw BenchmarkError.setup("http-alloc-probe needs BASELINE_SERVER_URL and HTTP_PROBE_*") }
        let concurrency = environment["HTTP_PROBE_CONCURRENCY"].flatMap(Int.init) ?? 1
        var components = URLComponents(
            url: baseURL.appendingPathComponent("json/items"),
            resolvingAgainstBaseURL: false
        )
        components?.queryItems = [URLQueryItem(name: "count", value: String(HTTPBenchmarks.itemCount))]
        guard let itemsURL = components?.url,
            let variant = try HTTPBenchmarks.makeVariants(
                baseURL: baseURL,
                itemsURL: itemsURL,
                concurrency: concurrency
            )
            .first(where: { $0.name == name })
        else { throw BenchmarkError.setup("no row named \(name)") }
        // The same warm-up in both runs: connections, caches, lazy globals.
        _ = try await HTTPBenchmarks.measure(variant, requests: 100, concurrency: concurrency, port: port)
        _ = try await HTTPBenchmarks.measure(variant, requests: requests, concurrency: concurrency, port: port)
        try await variant.shutdown()
        exit(0)
    }

    /// A preloadable malloc-count, built once into the temporary directory when only its source is at hand.
    static func mallocCountLibrary() throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let library = environment["MALLOC_COUNT_LIBRARY"] { return library }
        let source = environment["MALLOC_COUNT_SOURCE"] ?? "../shared/tools/malloc-count/malloc-count.c"
        guard FileManager.default.fileExists(atPath: source) else { return nil }
        let library = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-malloc-count.so").path
        if FileManager.default.fileExists(atPath: library) { return library }
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-O2", "-shared", "-fPIC", "-o", library, source, "-ldl"]
        try compiler.run()
        compiler.waitUntilExit()
        return compiler.terminationStatus == 0 ? library : nil
    }
}
