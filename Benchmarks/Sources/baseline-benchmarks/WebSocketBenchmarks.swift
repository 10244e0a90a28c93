import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging

/// WebSocket figures against the example server's `GET /echo/socket`, the
/// server in another process: 1 KiB text messages on one connection.
///
/// - **Throughput:** messages sent back to back by one task while another
///   reads the echoes; messages per second, and the client's CPU per message.
/// - **Round trip:** one message, wait for its echo, the next; p50 and p99.
/// - **Allocations:** per echoed message (one sent, one received), counted by
///   `malloc-count` in a child process, as for the HTTP rows.
///
/// Rows: Baseline's `WebSocket` over `AsyncHTTPClientTransport`; the
/// transport's connection alone (what the `WebSocket` wrapper costs); and
/// swift-websocket's client (`HummingbirdWSClient`) as the raw NIO
/// reference. `URLSessionTransport` has no row on Linux: its libcurl has no
/// WebSockets.
///
///   WS_MESSAGES (20,000 per throughput round), WS_ROUND_TRIPS (5,000 per
///   round), WS_ROUNDS (3), WS_VARIANTS (names containing any of these).
enum WebSocketBenchmarks {
    /// Runs `body` with a transport of its own, shut down after it whatever happens.
    static func withTransport(_ body: (AsyncHTTPClientTransport) async throws -> Void) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await body(transport)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    /// One client's way of opening the echo socket and running `body` on it.
    struct Variant {
        var name: String
        var run: @Sendable (URL, _ body: @escaping @Sendable (EchoSocket) async throws -> Void) async throws -> Void
    }

    /// What a workload needs of a connection: send from any task, receive
    /// from the workload's own (so not `Sendable`).
    struct EchoSocket {
        var send: @Sendable (String) async throws -> Void
        var receive: () async throws -> String
    }

    static let payload = String(repeating: "x", count: 1024)

    static func variants() -> [Variant] {
        [
            Variant(name: "Baseline WebSocket/AsyncHTTPClientTransport") { baseURL, body in
                try await withTransport { transport in
                    let client = HTTPClient(baseURL: baseURL, transport: transport)
                    let socket = try await client.webSocket(.get("/echo/socket"))
                    try await body(
                        EchoSocket(
                            send: { try await socket.send(.text($0)) },
                            receive: {
                                guard case .text(let text) = try await socket.receive() else {
                                    throw BenchmarkError.wrongPayload
                                }
                                return text
                            }
                        )
                    )
                    await socket.close()
                }
            },
            Variant(name: "AsyncHTTPClientTransport connection") { baseURL, body in
                try await withTransport { transport in
                    var request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("echo/socket"))
                    request.headerFields[.upgrade] = "websocket"
                    guard
                        case .upgraded(_, let connection) = try await transport.openWebSocket(
                            request,
                            limits: WebSocketLimits()
                        )
                    else { throw BenchmarkError.setup("the echo socket refused the upgrade") }
                    try await body(
                        EchoSocket(
                            send: { try await connection.send(.text($0)) },
                            receive: {
                                guard case .message(.text(let text)) = try await connection.receive() else {
                                    throw BenchmarkError.wrongPayload
                                }
                                return text
                            }
                        )
                    )
                    await connection.close(.normalClosure, reason: "")
                }
            },
            Variant(name: "swift-websocket client (raw)") { baseURL, body in
                var logger = Logger(label: "benchmark")
                logger.logLevel = .error
                let url = "ws://\(baseURL.host ?? "127.0.0.1"):\(baseURL.port ?? 80)/echo/socket"
                _ = try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    try await body(
                        EchoSocket(
                            send: { try await outbound.write(.text($0)) },
                            receive: {
                                guard case .text(let text) = try await messages.next() else {
                                    throw BenchmarkError.wrongPayload
                                }
                                return text
                            }
                        )
                    )
                    try await outbound.close(.normalClosure, reason: nil)
                }
            },
        ]
    }

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let child = try BenchmarkServerProcess()
        defer { child.stop() }
        let messages = environment["WS_MESSAGES"].flatMap(Int.init) ?? 20_000
        let roundTrips = environment["WS_ROUND_TRIPS"].flatMap(Int.init) ?? 5_000
        let rounds = environment["WS_ROUNDS"].flatMap(Int.init) ?? 3
        let filter = environment["WS_VARIANTS"].map { $0.split(separator: ",").map(String.init) }
        let variants = variants().filter { variant in filter.map { $0.contains { variant.name.contains($0) } } ?? true }
        print("WebSocket (1 KiB text to GET /echo/socket and back, one connection, server in another process)")
        print("  URLSessionTransport: no row on Linux (its libcurl has no WebSockets)")

        var rates: [String: [Double]] = [:]
        var cpu: [String: [Duration]] = [:]
        var latencies: [String: [Duration]] = [:]
        for round in 0...rounds {
            for variant in variants {
                // Round 0 warms up: connections, lazy globals, the server's pools.
                let (rate, cost) = try await throughput(variant, baseURL: child.baseURL, messages: messages)
                let times = try await roundTrip(variant, baseURL: child.baseURL, count: roundTrips)
                guard round > 0 else { continue }
                rates[variant.name, default: []].append(rate)
                cpu[variant.name, default: []].append(cost)
                latencies[variant.name, default: []] += times
            }
        }
        for variant in variants {
            guard let runs = rates[variant.name], let costs = cpu[variant.name],
                let times = latencies[variant.name]?.sorted(), !times.isEmpty
            else { continue }
            let rate = runs.sorted()[runs.count / 2]
            let cost = costs.reduce(.zero, +) / costs.count
            print(
                String(
                    format: "  %@ %8.0f msg/s  CPU %5.1f µs/msg  round trip p50 %@  p99 %@",
                    variant.name.padding(toLength: 44, withPad: " ", startingAt: 0),
                    rate,
                    seconds(cost) * 1e6,
                    format(times[times.count / 2]),
                    format(times[min(times.count - 1, times.count * 99 / 100)])
                )
            )
        }
        let reference = "swift-websocket client (raw)"
        for variant in variants where variant.name != reference {
            guard let a = rates[variant.name], let b = rates[reference], a.count == b.count else { continue }
            // The median of the rounds' ratios: each pair ran seconds apart.
            let ratios = zip(a, b).map { $0 / $1 }.sorted()
            print(
                String(
                    format: "  %@ / %@: %.2f× (rounds %.2f–%.2f)",
                    variant.name,
                    reference,
                    ratios[ratios.count / 2],
                    ratios.first ?? 0,
                    ratios.last ?? 0
                )
            )
        }
        try allocations(baseURL: child.baseURL, variants: variants)
    }

    /// Messages per second, and the process's CPU per message, for
    /// `messages` sent back to back while their echoes are read.
    static func throughput(_ variant: Variant, baseURL: URL, messages: Int) async throws -> (Double, Duration) {
        let result = LockedValue<(Double, Duration)>((0, .zero))
        try await variant.run(baseURL) { socket in
            let clock = ContinuousClock()
            let usage = ProcessUsage.now()
            let start = clock.now
            try await pipeline(socket, messages: messages)
            let elapsed = clock.now - start
            let used = ProcessUsage.now() - usage
            result.withLock { $0 = (Double(messages) / seconds(elapsed), used.cpu / messages) }
        }
        return result.current
    }

    /// Sends `messages` from one task while this one reads their echoes.
    static func pipeline(_ socket: EchoSocket, messages: Int) async throws {
        let send = socket.send
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<messages { try await send(payload) }
            }
            for _ in 0..<messages {
                guard try await socket.receive().utf8.count == payload.utf8.count else {
                    throw BenchmarkError.wrongPayload
                }
            }
            try await group.waitForAll()
        }
    }

    /// The time of each of `count` round trips, one message in flight.
    static func roundTrip(_ variant: Variant, baseURL: URL, count: Int) async throws -> [Duration] {
        let result = LockedValue<[Duration]>([])
        try await variant.run(baseURL) { socket in
            let clock = ContinuousClock()
            var times: [Duration] = []
            times.reserveCapacity(count)
            for _ in 0..<count {
                let start = clock.now
                try await socket.send(payload)
                guard try await socket.receive().utf8.count == payload.utf8.count else {
                    throw BenchmarkError.wrongPayload
                }
                times.append(clock.now - start)
            }
            result.withLock { [times] in $0 = times }
        }
        return result.current
    }

    /// Allocations per echoed message of each row: two child runs of the
    /// throughput workload, the difference divided by the difference in messages.
    static func allocations(baseURL: URL, variants: [Variant]) throws {
        guard let library = try HTTPAllocationBenchmarks.mallocCountLibrary() else {
            print("  (allocations: no malloc-count library; set MALLOC_COUNT_LIBRARY or MALLOC_COUNT_SOURCE)")
            return
        }
        let (low, high) = (2_000, 8_000)
        print("WebSocket allocations per echoed 1 KiB message (malloc-count, \(low) vs \(high) messages)")
        for variant in variants {
            func count(_ messages: Int) throws -> Int {
                try HTTPAllocationBenchmarks.allocations(
                    ofChild: ["ws-alloc-probe"],
                    environment: [
                        "BASELINE_SERVER_URL": baseURL.absoluteString,
                        "WS_PROBE_VARIANT": variant.name,
                        "WS_PROBE_MESSAGES": String(messages),
                    ],
                    library: library
                )
            }
            let perMessage = Double(try count(high) - count(low)) / Double(high - low)
            print(
                String(
                    format: "  %@ %7.1f",
                    variant.name.padding(toLength: 44, withPad: " ", startingAt: 0),
                    perMessage
                )
            )
        }
    }

    /// Runs in the child: the throughput workload of one row, then exit
    /// through `exit`, which is when malloc-count prints.
    static func probe() async throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        guard let baseURL = environment["BASELINE_SERVER_URL"].flatMap(URL.init(string:)),
            let name = environment["WS_PROBE_VARIANT"],
            let messages = environment["WS_PROBE_MESSAGES"].flatMap(Int.init),
            let variant = variants().first(where: { $0.name == name })
        else { throw BenchmarkError.setup("ws-alloc-probe needs BASELINE_SERVER_URL and WS_PROBE_*") }
        // The same warm-up and connection set-up in both runs: they cancel out.
        try await variant.run(baseURL) { socket in
            try await pipeline(socket, messages: 200)
            try await pipeline(socket, messages: messages)
        }
        exit(0)
    }
}
