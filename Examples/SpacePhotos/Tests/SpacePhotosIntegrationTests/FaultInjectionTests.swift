import BaselineAsyncHTTPClient
import BaselineHTTP
import Foundation
import Testing

/// A thousand requests per transport against a server that resets, truncates,
/// stalls and mangles its answers, with random cancellation: every call ends
/// with its value, a typed `HTTPClientError` or `CancellationError`, and
/// nothing is left running afterwards.
///
/// The run's seed is printed; `FAULT_SEED=<seed>` replays it.
@Suite("Fault injection (both transports)", .timeLimit(.minutes(3)))
struct FaultInjectionTests {
    static let requestCount = 1000
    static let concurrency = 16
    /// A stalled request ends by this timeout (or a cancellation).
    static let stallTimeout = Duration.milliseconds(500)
    /// Any other request ending by timeout hung: a failure.
    static let hangTimeout = Duration.seconds(30)

    /// One request of the run.
    struct Plan: Sendable {
        var n: Int
        var fault: Fault
        var closes: Bool
        /// Yields before cancelling the call, or `nil` to leave it be.
        var cancelAfterYields: Int?
    }

    static func plans(seed: UInt64) -> [Plan] {
        var random = FaultRandom(seed: seed)
        return (0..<requestCount).map { n in
            Plan(
                n: n,
                fault: Fault.allCases.randomElement(using: &random) ?? .good,
                closes: Bool.random(using: &random),
                cancelAfterYields: Int.random(in: 0..<100, using: &random) < 15
                    ? Int.random(in: 0..<40, using: &random) : nil
            )
        }
    }

    static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["FAULT_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }

    /// How a call ended.
    enum Outcome: Sendable {
        case value(Data)
        case clientError(HTTPClientError)
        case cancelled
        case other(String)
    }

    /// What went wrong with one call, or `nil` when its end is one the fault allows.
    static func problem(_ outcome: Outcome, for plan: Plan) -> String? {
        let cancelled = plan.cancelAfterYields != nil
        switch outcome {
        case let .other(description):
            return "an untyped error: \(description)"
        case .cancelled:
            return cancelled ? nil : "CancellationError without a cancellation"
        case let .clientError(error):
            if case .timedOut = error, plan.fault != .stall { return "a hang (timed out after \(hangTimeout))" }
            // A stall ends by its timeout, or earlier on a connection an
            // earlier fault left garbage on (a too-short length's extra bytes).
            _ = error
            return nil
        case let .value(data):
            switch plan.fault {
            case .good:
                return data == FaultInjectingServer.body(plan.n) ? nil : "a wrong value (\(data.count) bytes)"
            case .shortLength:
                let expected = FaultInjectingServer.body(plan.n).prefix(FaultInjectingServer.body(plan.n).count / 2)
                return data == expected ? nil : "a wrong value for a short length (\(data.count) bytes)"
            case .reset, .truncated, .stall, .badChunkSize, .missingLastChunk:
                return "a value (\(data.count) bytes) from a broken response: a silent truncation"
            }
        }
    }

    static func isTimeout(_ error: HTTPClientError) -> Bool {
        if case .timedOut = error { true } else { false }
    }

    static func call(_ client: HTTPClient, _ plan: Plan) async -> Outcome {
        let path = "/\(plan.fault.rawValue)/\(plan.n)" + (plan.closes ? "/close" : "")
        let request = Request<Data>.get(path).timeout(plan.fault == .stall ? stallTimeout : hangTimeout)
        do {
            return .value(try await client.send(request).value)
        } catch let error as HTTPClientError {
            return .clientError(error)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .other("\(type(of: error)): \(error)")
        }
    }

    /// Runs the plans 16 at a time; returns the problems found.
    static func run(
        _ plans: [Plan],
        on client: HTTPClient
    ) async -> (problems: [String], values: Int, errors: Int, cancelled: Int) {
        await withTaskGroup(of: (Plan, Outcome).self) { group in
            var next = plans.makeIterator()
            func start(_ plan: Plan) {
                group.addTask {
                    let call = Task { await Self.call(client, plan) }
                    if let yields = plan.cancelAfterYields {
                        for _ in 0..<yields { await Task.yield() }
                        call.cancel()
                    }
                    return (plan, await call.value)
                }
            }
            for _ in 0..<concurrency { if let plan = next.next() { start(plan) } }
            var problems = [String]()
            var counts = (values: 0, errors: 0, cancelled: 0)
            for await (plan, outcome) in group {
                if let problem = problem(outcome, for: plan) {
                    problems.append(
                        "request \(plan.n) (\(plan.fault)\(plan.closes ? ", close" : "")\(plan.cancelAfterYields.map { ", cancelled after \($0) yields" } ?? "")): \(problem)"
                    )
                }
                switch outcome {
                case .value: counts.values += 1
                case .clientError, .other: counts.errors += 1
                case .cancelled: counts.cancelled += 1
                }
                if let plan = next.next() { start(plan) }
            }
            return (problems, counts.values, counts.errors, counts.cancelled)
        }
    }

    static func check(
        _ kind: TransportKind,
        seed: UInt64,
        result: (problems: [String], values: Int, errors: Int, cancelled: Int),
        plans: [Plan]
    ) {
        print(
            "Fault injection on \(kind): seed \(seed) (FAULT_SEED=\(seed) replays it): \(result.values) values, \(result.errors) typed errors, \(result.cancelled) cancelled"
        )
        #expect(
            result.problems.isEmpty,
            "seed \(seed), \(kind): \(result.problems.count) calls ended wrongly:\n\(result.problems.prefix(20).joined(separator: "\n"))"
        )
        // Good responses mostly arrive: a connection a fault left behind can
        // fail the next request on it, but not most of them.
        let good = plans.filter { $0.fault == .good && $0.cancelAfterYields == nil }.count
        #expect(
            result.values >= good / 2,
            "seed \(seed), \(kind): only \(result.values) values for \(good) good responses"
        )
    }

    @Test
    func urlSessionTransportEndsEveryCallTyped() async throws {
        let seed = Self.seed()
        let plans = Self.plans(seed: seed)
        let server = try FaultInjectingServer()
        defer { server.shutdownListener() }
        let transport = URLSessionTransport()
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        let result = await Self.run(plans, on: client)
        Self.check(.urlSession, seed: seed, result: result, plans: plans)
        // No transfer left: cancelled ones are torn down a moment after their
        // calls return (the suite's time limit fails a leak instead of hanging).
        try await transport.waitUntilIdle()
    }

    @Test
    func asyncHTTPClientTransportEndsEveryCallTyped() async throws {
        let seed = Self.seed()
        let plans = Self.plans(seed: seed)
        let server = try FaultInjectingServer()
        defer { server.shutdownListener() }
        let transport = AsyncHTTPClientTransport()
        let client = HTTPClient(baseURL: server.baseURL, transport: transport)
        let result = await Self.run(plans, on: client)
        Self.check(.asyncHTTPClient, seed: seed, result: result, plans: plans)
        try await transport.shutdown()
        // Shut down, the pool has closed every connection: no stall or
        // transfer is left on the server's side either.
        try await server.waitUntilAllConnectionsClosed()
    }

    // MARK: Streams

    /// Reads a streamed route with `read`, which must throw a typed error.
    static func expectStreamFails(
        _ kind: TransportKind,
        path: String,
        read: @Sendable @escaping (HTTPBody) async throws -> Int
    ) async throws {
        let server = try FaultInjectingServer()
        defer { server.shutdownListener() }
        try await kind.with { transport in
            let client = HTTPClient(baseURL: server.baseURL, transport: transport)
            let response = try await client.stream(Request<Data>.get(path).timeout(hangTimeout))
            do {
                let count = try await read(response.body)
                Issue.record("\(kind) \(path): the truncated stream ended silently after \(count) elements")
            } catch let error as HTTPClientError {
                #expect(!isTimeout(error), "\(kind) \(path): \(error)")
            } catch {
                Issue.record("\(kind) \(path): an untyped error: \(type(of: error)): \(error)")
            }
        }
    }

    @Test(arguments: TransportKind.allCases, ["/lines-chunked/5", "/lines-length/5"])
    func linesOfATruncatedStreamThrow(_ kind: TransportKind, path: String) async throws {
        try await Self.expectStreamFails(kind, path: path) { body in
            var count = 0
            for try await _ in body.lines() { count += 1 }
            return count
        }
    }

    @Test(arguments: TransportKind.allCases, ["/events-chunked/5", "/events-length/5"])
    func serverSentEventsOfATruncatedStreamThrow(_ kind: TransportKind, path: String) async throws {
        try await Self.expectStreamFails(kind, path: path) { body in
            var count = 0
            for try await _ in body.serverSentEvents() { count += 1 }
            return count
        }
    }
}

/// SplitMix64: a small seeded generator, so a seed replays a run.
struct FaultRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a person reads when a transport fails: the same line on both transports.
@Suite("Transport failures in words (both transports)", .timeLimit(.minutes(2)))
struct TransportFailureDescriptionTests {
    @Test(arguments: TransportKind.allCases)
    func refusedConnectionNamesTheServer(_ kind: TransportKind) async throws {
        try await kind.with { transport in
            let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
            let error = await #expect(throws: HTTPClientError.self) { try await client.send(Request<Data>.get("/")) }
            #expect(error?.description == "Could not connect to 127.0.0.1:1 (connection refused)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func resetMidBodyIsALostConnection(_ kind: TransportKind) async throws {
        let server = try FaultInjectingServer()
        defer { server.shutdownListener() }
        try await kind.with { transport in
            let client = HTTPClient(baseURL: server.baseURL, transport: transport)
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.send(Request<Data>.get("/reset/1"))
            }
            #expect(
                error?.description == "The connection to 127.0.0.1:\(server.port) was lost",
                "\(String(reflecting: error))"
            )
        }
    }
}
