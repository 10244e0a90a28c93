import AsyncHTTPClient
import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import Foundation
import NIOCore
import SpacePhotosServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET + JSON decode throughput and latency against the example server on
/// loopback, at 1, 8 and 64 concurrent requests, for raw URLSession, Baseline
/// over URLSessionTransport, raw AsyncHTTPClient and Baseline over the
/// AsyncHTTPClient transport; then a 1 GiB streamed download's peak memory.
///
/// The server runs in this process (its own NIO threads); figures are for
/// this machine, both sides sharing its cores.
enum HTTPBenchmarks {
    struct Item: Decodable, Sendable {
        var id: Int
        var name: String
        var score: Double
        var isFeatured: Bool
        var tags: [String]
    }

    /// How many items each `GET /json/items` asks for: 20 (about 2 KB of
    /// JSON) unless HTTP_ITEMS says otherwise; HTTP_ITEMS=1 (about 100
    /// bytes) shows the fixed cost of a request that a larger body hides.
    static let itemCount = ProcessInfo.processInfo.environment["HTTP_ITEMS"].flatMap(Int.init) ?? 20

    /// What every row's `fetch` returns for a correct answer, which the
    /// harness checks: the item count.
    static var expectedPayload: Int { itemCount }

    /// One way of doing "GET /json/items and decode it".
    struct Variant {
        var name: String
        var fetch: @Sendable () async throws -> Int
        var shutdown: () async throws -> Void = {}
    }

    static func run(arguments: Set<String>) async throws {
        // BASELINE_SERVER_URL: a `spacephotos serve` in another process, so
        // the process's CPU and memory figures are the clients' alone.
        // Otherwise the server runs in a child process (HTTP_SERVER_IN_PROCESS=1: in this one).
        let environment = ProcessInfo.processInfo.environment
        let external = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:))
        let inProcess = external == nil && environment["HTTP_SERVER_IN_PROCESS"] != nil
        let child = external == nil && !inProcess ? try BenchmarkServerProcess() : nil
        defer { child?.stop() }
        let server = inProcess ? try await ExampleServer().start() : nil
        defer { if let server { Task { await server.stop() } } }
        guard let baseURL = external ?? child?.baseURL ?? server?.baseURL, let port = baseURL.port else { return }
        print(
            "HTTP (GET /json/items?count=\(itemCount) + JSON decode, server on loopback \(inProcess ? "in this process" : "in another process"))"
        )
        let url = baseURL.appendingPathComponent("json/items")
        let query = URLQueryItem(name: "count", value: String(itemCount))
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
        components.queryItems = [query]
        guard let itemsURL = components.url else { return }

        if arguments.contains("http-stream") {
            try await streamingDownload(baseURL: baseURL)
            return
        }
        if arguments.contains("http-allocations") {
            try HTTPAllocationBenchmarks.run(baseURL: baseURL)
            return
        }
        // Narrowing, for profiling one variant: HTTP_VARIANTS="Baseline/Async,pool 64" HTTP_CONCURRENCY=1 HTTP_REQUESTS=30000
        let requestsPerRun =
            environment["HTTP_REQUESTS"].flatMap(Int.init) ?? (arguments.contains("http-quick") ? 2_000 : 10_000)
        let variantFilter = environment["HTTP_VARIANTS"].map { $0.split(separator: ",").map(String.init) }
        let levels =
            environment["HTTP_CONCURRENCY"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1, 8, 64]
        let rounds = environment["HTTP_ROUNDS"].flatMap(Int.init) ?? 5
        // (measured, reference, whether it is Baseline against its own raw transport: shown as a percentage)
        let comparisons = [
            ("Baseline/URLSessionTransport", "URLSession (raw)", true),
            ("Baseline/URLSessionTransport", "URLSession (raw, data delegate)", true),
            ("Baseline/AsyncHTTPClientTransport", "AsyncHTTPClient (raw, pool 64)", true),
            // The same request on the wire (rows named in HTTP_VARIANTS only).
            ("Baseline/AsyncHTTPClientTransport", "AsyncHTTPClient (raw, pool 64, same headers)", true),
            ("Baseline/AsyncHTTPClientTransport", "URLSession (raw)", false),
            ("AsyncHTTPClient (raw, pool 64)", "URLSession (raw, shared)", false),
            ("gzip: Baseline/AsyncHTTPClientTransport", "gzip: AsyncHTTPClient (raw, pool 64)", true),
            ("gzip: Baseline/URLSessionTransport", "gzip: URLSession (raw, data delegate)", true),
        ]
        for concurrency in levels {
            let variants = try makeVariants(baseURL: baseURL, itemsURL: itemsURL, concurrency: concurrency).filter {
                variant in
                variantFilter.map { filters in filters.contains { variant.name.contains($0) } }
                    ?? !variant.name.hasSuffix("same headers)")
            }
            // Warm-up: connections, caches.
            for variant in variants {
                _ = try await measure(variant, requests: 200, concurrency: concurrency, port: port)
            }
            // Interleaved rounds: the machine's speed drifts over a run, and a
            // ratio of two rows measured minutes apart would carry that drift.
            var samples: [String: [Throughput]] = [:]
            for _ in 0..<rounds {
                for variant in variants {
                    let result = try await measure(
                        variant,
                        requests: requestsPerRun / rounds,
                        concurrency: concurrency,
                        port: port
                    )
                    samples[variant.name, default: []].append(result)
                }
            }
            for variant in variants {
                guard let runs = samples[variant.name] else { continue }
                let result = summary(of: runs)
                print(
                    "  c=\(String(concurrency).padding(toLength: 3, withPad: " ", startingAt: 0)) \(variant.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(result)"
                )
                try await variant.shutdown()
            }
            // Each ratio is the median of the rounds' ratios: the two rows of
            // one round ran seconds apart, on the same state of the machine.
            for (measured, reference, asPercentage) in comparisons {
                guard let a = samples[measured], let b = samples[reference], a.count == b.count else { continue }
                let ratios = zip(a, b).map { $0.requestsPerSecond / $1.requestsPerSecond }.sorted()
                let median = ratios[ratios.count / 2]
                let range = String(format: "rounds %.2f–%.2f", ratios.first ?? 0, ratios.last ?? 0)
                if asPercentage {
                    print(
                        String(
                            format: "  c=%-3d %@ / %@: %.1f %% (%@)",
                            concurrency,
                            measured,
                            reference,
                            100 * median,
                            range
                        )
                    )
                } else {
                    print(
                        String(format: "  c=%-3d %@ vs %@: %.2f× (%@)", concurrency, measured, reference, median, range)
                    )
                }
            }
        }
        if !arguments.contains("http-quick") {
            try HTTPAllocationBenchmarks.run(baseURL: baseURL)
            try await streamingDownload(baseURL: baseURL)
        }
    }

    static func makeVariants(baseURL: URL, itemsURL: URL, concurrency: Int) throws -> [Variant] {
        let decoder = JSONDecoder()
        // Raw URLSession with the same configuration the transport uses.
        let sessionConfiguration = URLSessionTransport.defaultConfiguration()
        if let limit = ProcessInfo.processInfo.environment["URLSESSION_MAX_CONNECTIONS"].flatMap(Int.init) {
            sessionConfiguration.httpMaximumConnectionsPerHost = limit
        }
        let rawSession = URLSession(configuration: sessionConfiguration)
        let raw = Variant(
            name: "URLSession (raw)",
            fetch: {
                let (data, _) = try await rawSession.data(from: itemsURL)
                return try decoder.decode([Item].self, from: data).count
            },
            shutdown: { rawSession.finishTasksAndInvalidate() }
        )

        // URLSession as most code meets it: the shared session, default
        // configuration (which is where FoundationNetworking's reconnecting
        // under concurrency shows).
        let shared = Variant(
            name: "URLSession (raw, shared)",
            fetch: {
                let (data, _) = try await URLSession.shared.data(from: itemsURL)
                return try decoder.decode([Item].self, from: data).count
            }
        )

        // Raw URLSession through a data delegate (what a streaming client needs
        // on Linux, where there is no bytes(for:)): separates the delegate
        // mechanism's cost from Baseline's own.
        let delegateCollector = DelegateCollector()
        let delegateSession = URLSession(
            configuration: sessionConfiguration,
            delegate: delegateCollector,
            delegateQueue: nil
        )
        let rawDelegate = Variant(
            name: "URLSession (raw, data delegate)",
            fetch: {
                let data = try await delegateCollector.fetch(itemsURL, on: delegateSession)
                return try decoder.decode([Item].self, from: data).count
            },
            shutdown: { delegateSession.finishTasksAndInvalidate() }
        )

        // HTTP_NO_DECOMPRESSION=1: Baseline's clients without their gzip step, to see what it costs.
        let baselineConfiguration = HTTPClient.Configuration(
            baseURL: baseURL,
            decompressesResponses: ProcessInfo.processInfo.environment["HTTP_NO_DECOMPRESSION"] == nil
        )
        let sessionTransport = URLSessionTransport(configuration: sessionConfiguration)
        let overSession = HTTPClient(configuration: baselineConfiguration, transport: sessionTransport)
        let request = Request<[Item]>.get("/json/items", query: [URLQueryItem(name: "count", value: String(itemCount))])
        let baselineSession = Variant(
            name: "Baseline/URLSessionTransport",
            fetch: {
                try await overSession.send(request).value.count
            }
        )

        let ahcDefault = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup)
        let ahcDefaultVariant = Variant(
            name: "AsyncHTTPClient (raw, default pool)",
            fetch: {
                try await fetchRaw(ahcDefault, itemsURL, decoder)
            },
            shutdown: { try await ahcDefault.shutdown() }
        )

        let ahc64 = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.configuration(maximumConnectionsPerHost: 64)
        )
        let ahc64Variant = Variant(
            name: "AsyncHTTPClient (raw, pool 64)",
            fetch: {
                try await fetchRaw(ahc64, itemsURL, decoder)
            },
            shutdown: { try await ahc64.shutdown() }
        )

        let ahcTransport = AsyncHTTPClientTransport()
        let overAHC = HTTPClient(configuration: baselineConfiguration, transport: ahcTransport)
        let baselineAHC = Variant(
            name: "Baseline/AsyncHTTPClientTransport",
            fetch: {
                try await overAHC.send(request).value.count
            },
            shutdown: { try await ahcTransport.shutdown() }
        )

        // gzip: 16 KiB of text served compressed (about 10:1), inflated by
        // each client: AsyncHTTPClient's own decompression, URLSession's
        // (libcurl's zlib on Linux), and Baseline's over each transport.
        let gzipBytes = 16_384
        let gzipQuery = [URLQueryItem(name: "bytes", value: String(gzipBytes))]
        var gzipComponents = URLComponents(
            url: baseURL.appendingPathComponent("compressible/text"),
            resolvingAgainstBaseURL: false
        )
        gzipComponents?.queryItems = gzipQuery
        guard let gzipURL = gzipComponents?.url else { throw BenchmarkError.setup("no gzip URL") }
        let gzipRequest = Request<Data>.get("/compressible/text", query: gzipQuery)
        let ahcGzip = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: {
                var configuration = AsyncHTTPClientTransport.configuration(maximumConnectionsPerHost: 64)
                configuration.decompression = .enabled(limit: .none)
                return configuration
            }()
        )
        let gzipVariants = [
            Variant(
                name: "gzip: AsyncHTTPClient (raw, pool 64)",
                fetch: {
                    var request = HTTPClientRequest(url: gzipURL.absoluteString)
                    request.headers.add(name: "Accept-Encoding", value: "gzip")
                    let response = try await ahcGzip.execute(request, timeout: .seconds(30))
                    return payload(try await response.body.collect(upTo: 16 * 1024 * 1024).readableBytes, gzipBytes)
                },
                shutdown: { try await ahcGzip.shutdown() }
            ),
            Variant(
                name: "gzip: Baseline/AsyncHTTPClientTransport",
                fetch: { payload(try await overAHC.send(gzipRequest).value.count, gzipBytes) }
            ),
            Variant(
                name: "gzip: URLSession (raw, data delegate)",
                fetch: { payload(try await delegateCollector.fetch(gzipURL, on: delegateSession).count, gzipBytes) }
            ),
            Variant(
                name: "gzip: Baseline/URLSessionTransport",
                fetch: { payload(try await overSession.send(gzipRequest).value.count, gzipBytes) }
            ),
        ]

        // The raw clients sending the header fields Baseline sends by default,
        // so that both put the same request on the wire (allocation rows only:
        // libcurl copies each field, and AsyncHTTPClient copies a non-empty list).
        let sameHeaders = [("Accept", "application/json"), ("Accept-Encoding", "gzip, deflate")]
        let sameHeaderVariants = [
            Variant(
                name: "URLSession (raw, data delegate, same headers)",
                fetch: {
                    var request = URLRequest(url: itemsURL)
                    for (name, value) in sameHeaders { request.setValue(value, forHTTPHeaderField: name) }
                    let data = try await delegateCollector.fetch(request, on: delegateSession)
                    return try decoder.decode([Item].self, from: data).count
                }
            ),
            Variant(
                name: "AsyncHTTPClient (raw, pool 64, same headers)",
                fetch: {
                    var request = HTTPClientRequest(url: itemsURL.absoluteString)
                    for (name, value) in sameHeaders { request.headers.add(name: name, value: value) }
                    let response = try await ahc64.execute(request, timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
                    return try decoder.decode([Item].self, from: Data(body.readableBytesView)).count
                }
            ),
        ]

        var variants = [raw, shared, rawDelegate, baselineSession, ahcDefaultVariant, ahc64Variant, baselineAHC]
        variants += gzipVariants + sameHeaderVariants
        if ProcessInfo.processInfo.environment["HTTP_DIAGNOSTICS"] != nil {
            // Halfway points between raw AsyncHTTPClient and Baseline on it,
            // to tell which layer a difference comes from.
            let httpRequest = try overAHC.makeHTTPRequest(request).0
            variants.append(
                Variant(
                    name: "diag: transport.send + HTTPBody.collect",
                    fetch: {
                        let (_, body) = try await ahcTransport.send(httpRequest, body: nil)
                        return try decoder.decode([Item].self, from: try await body.collect(upTo: 16 * 1024 * 1024))
                            .count
                    }
                )
            )
            variants.append(
                Variant(
                    name: "diag: execute + HTTPBody(map).collect",
                    fetch: {
                        let response = try await ahc64.execute(
                            HTTPClientRequest(url: itemsURL.absoluteString),
                            timeout: .seconds(30)
                        )
                        let body = HTTPBody(response.body.map { Data($0.readableBytesView) }, length: nil)
                        return try decoder.decode([Item].self, from: try await body.collect(upTo: 16 * 1024 * 1024))
                            .count
                    }
                )
            )
        }
        return variants
    }

    /// What `measure` expects from a fetch (its 20 items) when `count` is
    /// the `expected` number of bytes; otherwise a count it refuses.
    static func payload(_ count: Int, _ expected: Int) -> Int {
        count == expected ? expectedPayload : -count
    }

    static func fetchRaw(_ client: AsyncHTTPClient.HTTPClient, _ url: URL, _ decoder: JSONDecoder) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return try decoder.decode([Item].self, from: Data(body.readableBytesView)).count
    }

    struct Throughput: CustomStringConvertible {
        var requestsPerSecond: Double
        var medianLatency: Duration
        var p99Latency: Duration
        var newConnections: Int
        /// The whole process's CPU time per request (client and in-process server).
        var cpuPerRequest: Duration
        /// Context switches per request, voluntary and not (the process's).
        var contextSwitchesPerRequest: Double

        var description: String {
            String(
                format:
                    "%8.0f req/s  latency median %@  p99 %@  CPU %5.0f µs/req  %4.1f switches/req  new connections %d",
                requestsPerSecond,
                format(medianLatency),
                format(p99Latency),
                seconds(cpuPerRequest) * 1e6,
                contextSwitchesPerRequest,
                newConnections
            )
        }
    }

    /// One row's rounds as one: the median rate and latencies, the new
    /// connections of all rounds, and costs averaged over the rounds (they
    /// drift less than rates do).
    static func summary(of runs: [Throughput]) -> Throughput {
        var result = runs.sorted(by: { $0.requestsPerSecond < $1.requestsPerSecond })[runs.count / 2]
        result.newConnections = runs.reduce(0) { $0 + $1.newConnections }
        result.cpuPerRequest = runs.reduce(.zero) { $0 + $1.cpuPerRequest } / runs.count
        result.contextSwitchesPerRequest = runs.reduce(0) { $0 + $1.contextSwitchesPerRequest } / Double(runs.count)
        return result
    }

    /// `requests` fetches by `concurrency` workers; new connections are
    /// counted from the server port's sockets in the kernel's TCP table.
    static func measure(_ variant: Variant, requests: Int, concurrency: Int, port: Int) async throws -> Throughput {
        let clock = ContinuousClock()
        let next = LockedValue(0)
        let fetch = variant.fetch
        let connectionsBefore = TCPTable.connectionCount(toPort: port)
        let usageBefore = ProcessUsage.now()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var latencies: [Duration] = []
                    while next.withLock({ count in
                        count += 1
                        return count
                    }) <= requests {
                        let begin = clock.now
                        guard try await fetch() == expectedPayload else { throw BenchmarkError.wrongPayload }
                        latencies.append(clock.now - begin)
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        let elapsed = clock.now - start
        let usage = ProcessUsage.now() - usageBefore
        let connectionsAfter = TCPTable.connectionCount(toPort: port)
        return Throughput(
            requestsPerSecond: Double(requests) / seconds(elapsed),
            medianLatency: latencies[latencies.count / 2],
            p99Latency: latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
            newConnections: max(0, connectionsAfter - connectionsBefore),
            cpuPerRequest: usage.cpu / requests,
            contextSwitchesPerRequest: Double(usage.contextSwitches) / Double(requests)
        )
    }

    /// Streams 1 GiB through Baseline on each transport, reading it chunk by
    /// chunk, each in a process of its own (`http-stream-probe`), whose peak
    /// resident memory is then the whole client process's.
    static func streamingDownload(baseURL: URL) async throws {
        let limit = 64.0
        for name in ["URLSessionTransport", "AsyncHTTPClientTransport"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["http-stream-probe"]
            var environment = ProcessInfo.processInfo.environment
            environment["BASELINE_SERVER_URL"] = baseURL.absoluteString
            environment["HTTP_STREAM_TRANSPORT"] = name
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let line = text.split(separator: "\n").last(where: { $0.hasPrefix("STREAM ") })
            else {
                throw BenchmarkError.setup("the streaming probe over \(name) failed: \(text.suffix(500))")
            }
            let values = line.dropFirst("STREAM ".count).split(separator: " ").compactMap { Double($0) }
            guard values.count == 4 else { throw BenchmarkError.setup("the streaming probe said \(line)") }
            let (rate, bytes, before, peak) = (values[0], values[1], values[2], values[3])
            print(
                String(
                    format:
                        "  stream 1 GiB over %@: %.0f MiB/s, %.0f bytes, resident at start %.1f MiB, peak %.1f MiB (target < %.0f MiB: %@)",
                    name,
                    rate,
                    bytes,
                    before,
                    peak,
                    limit,
                    peak < limit ? "met" : "missed"
                )
            )
        }
    }

    /// Runs in the child: one 1 GiB download over `HTTP_STREAM_TRANSPORT`,
    /// then `STREAM <MiB/s> <bytes> <resident at start, MiB> <peak resident, MiB>`.
    static func streamProbe() async throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let baseURL = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:)),
            let name = environment["HTTP_STREAM_TRANSPORT"]
        else { throw BenchmarkError.setup("http-stream-probe needs BASELINE_SERVER_URL and HTTP_STREAM_TRANSPORT") }
        let ahc = name == "AsyncHTTPClientTransport" ? AsyncHTTPClientTransport() : nil
        let transport: any HTTPTransport = ahc ?? URLSessionTransport()
        let client = HTTPClient(baseURL: baseURL, transport: transport)
        let before = Memory.residentBytes()
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await client.stream(.get("/downloads/1GiB.bin") as Request<Void>)
        var received = 0
        for try await chunk in response.body { received += chunk.count }
        let elapsed = clock.now - start
        let peak = Memory.peakResidentBytes()
        try await ahc?.shutdown()
        let line =
            "STREAM \(Double(received) / 1_048_576 / seconds(elapsed)) \(received) \(Double(before) / 1_048_576) \(Double(peak) / 1_048_576)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        exit(0)
    }
}

enum BenchmarkError: Error {
    case wrongPayload
    /// The benchmark's setup did not reach the state it measures.
    case setup(String)
}

/// A shared atomic-enough counter for handing out request numbers.
/// Reads Linux's `/proc/net/tcp`: how many sockets (any state, TIME_WAIT
/// included) have the server's port as their remote end — each is one
/// connection a client opened within the last minute.
enum TCPTable {
    static func connectionCount(toPort port: Int) -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return -1 }
        let hexPort = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return columns.count > 2 && columns[2].hasSuffix(hexPort)
        }.count
    }
}

/// The process's CPU time and context switches so far (`getrusage`): what a
/// request costs, apart from how long the scheduler made it wait.
struct ProcessUsage {
    var cpu: Duration
    var contextSwitches: Int

    static func now() -> ProcessUsage {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return ProcessUsage(
            cpu: duration(usage.ru_utime) + duration(usage.ru_stime),
            contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw
        )
    }

    static func - (after: ProcessUsage, before: ProcessUsage) -> ProcessUsage {
        ProcessUsage(cpu: after.cpu - before.cpu, contextSwitches: after.contextSwitches - before.contextSwitches)
    }
}

/// Resident memory from `/proc/<process>/status` (Linux): this process's, or
/// a child's (a benchmark's server) by its pid.
enum Memory {
    static func residentBytes(of process: String = "self") -> Int { field("VmRSS:", of: process) }
    static func peakResidentBytes(of process: String = "self") -> Int { field("VmHWM:", of: process) }

    /// Resets the peak (VmHWM) by writing 5 to /proc/<process>/clear_refs.
    static func resetPeak(of process: String = "self") {
        try? "5".write(toFile: "/proc/\(process)/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func field(_ name: String, of process: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}

/// A minimal data delegate that gathers each task's body and resumes its
/// caller at completion: the least a delegate-based client can do.
final class DelegateCollector: NSObject, URLSessionDataDelegate, Sendable {
    private let pending = LockedValue<[Int: (data: Data, continuation: CheckedContinuation<Data, any Error>)]>([:])

    func fetch(_ url: URL, on session: URLSession) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: url)
            pending.withLock { $0[task.taskIdentifier] = (Data(), continuation) }
            task.resume()
        }
    }

    func fetch(_ request: URLRequest, on session: URLSession) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request)
            pending.withLock { $0[task.taskIdentifier] = (Data(), continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let entry = pending.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        if let error {
            entry?.continuation.resume(throwing: error)
        } else {
            entry.map { $0.continuation.resume(returning: $0.data) }
        }
    }
}
