import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Clocks
import Crypto
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

/// The transports Baseline ships; every test below runs on each, against the
/// real example server on loopback.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh transport of this kind, shutting it down
    /// after; `readTimeout`, when given, replaces the transport's default
    /// limit on a server that sends nothing.
    func with<T>(
        isolation: isolated (any Actor)? = #isolation,
        readTimeout: Duration? = nil,
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        switch self {
        case .urlSession:
            let configuration = URLSessionTransport.defaultConfiguration()
            if let readTimeout {
                let (seconds, attoseconds) = readTimeout.components
                configuration.timeoutIntervalForRequest = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
            }
            return try await body(URLSessionTransport(configuration: configuration))
        case .asyncHTTPClient:
            let transport =
                if let readTimeout {
                    AsyncHTTPClientTransport(readTimeout: .nanoseconds(Int64(readTimeout / .nanoseconds(1))))
                } else {
                    AsyncHTTPClientTransport()
                }
            do {
                let result = try await body(transport)
                try await transport.shutdown()
                return result
            } catch {
                try? await transport.shutdown()
                throw error
            }
        }
    }
}

/// One suite, two transports: what a Baseline client promises does not depend
/// on the transport under it.
@Suite("Transport conformance (URLSession and AsyncHTTPClient, real server)", .timeLimit(.minutes(2)))
struct TransportConformanceTests {
    struct Item: Decodable, Equatable {
        var id: Int
        var name: String
    }

    struct UploadReceipt: Decodable {
        var id: String
        var bytes: Int
        var sha256: String
    }

    func client(
        _ server: RunningServer,
        _ transport: any HTTPTransport,
        configure: (inout HTTPClient.Configuration) -> Void = { _ in },
        middleware: [any HTTPMiddleware] = []
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration(baseURL: server.baseURL)
        configure(&configuration)
        return HTTPClient(configuration: configuration, transport: transport, middleware: middleware)
    }

    static func hex(_ data: some Sequence<UInt8>) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: TransportKind.allCases)
    func getsAndDecodesJSON(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let response = try await client(server, transport).send(
                    Request<[Item]>.get("/json/items", query: [.init(name: "count", value: "3")])
                )
                #expect(response.value.map(\.id) == [1, 2, 3])
                #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
                #expect(response.metrics.bytesReceived == response.body.count)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func reportsAnUnacceptableStatusWithTheServersErrorDocument(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                _ = await #expect {
                    try await client(server, transport).send(Request<Void>.get("/downloads/nothing-here"))
                } throws: { error in
                    let error = error as? HTTPClientError
                    return error?.status == .notFound && error?.serverError?.code == "not_found"
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func uploadsDataAndFilesWithProgress(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = client(server, transport)
                let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                let fromData = try await client.send(Request<UploadReceipt>.post("/uploads", body: .data(payload)))
                #expect(fromData.status == .created)
                #expect(fromData.value.bytes == payload.count)
                #expect(fromData.value.sha256 == Self.hex(SHA256.hash(data: payload)))

                let directory = try TemporaryDirectory()
                let file = directory.url.appendingPathComponent("upload.bin")
                try payload.write(to: file)
                let progress = LockedValue<[TransferProgress]>([])
                let fromFile = try await client.upload(Request<UploadReceipt>.post("/uploads", body: .file(file))) {
                    updates in
                    for await update in updates { progress.withLock { $0.append(update) } }
                }
                #expect(fromFile.value.sha256 == fromData.value.sha256)
                #expect(
                    progress.current.last
                        == TransferProgress(completedBytes: Int64(payload.count), totalBytes: Int64(payload.count))
                )
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func uploadsAMultipartForm(_ kind: TransportKind) async throws {
        struct Receipt: Decodable {
            struct Part: Decodable {
                var name: String
                var filename: String?
                var bytes: Int
            }
            var parts: [Part]?
        }
        try await withServer { server in
            try await kind.with { transport in
                let form = MultipartForm()
                    .field("title", "Pillars of Creation")
                    .data("photo", Data(repeating: 7, count: 5_000), filename: "pillars.png", contentType: "image/png")
                let receipt = try await client(server, transport).send(
                    Request<Receipt>.post("/uploads", body: .multipart(form))
                )
                #expect(receipt.status == .created)
                let parts = try #require(receipt.value.parts)
                #expect(parts.map(\.name) == ["title", "photo"])
                #expect(parts.last?.filename == "pillars.png" && parts.last?.bytes == 5_000)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func downloadsToAFileWithProgressAndTheRightBytes(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let directory = try TemporaryDirectory()
                let destination = directory.url.appendingPathComponent("1MiB.bin")
                let progress = LockedValue<[TransferProgress]>([])
                let response = try await client(server, transport).download(
                    Request<Void>.get("/downloads/1MiB.bin"),
                    to: destination
                ) { updates in
                    for await update in updates { progress.withLock { $0.append(update) } }
                }
                let written = try Data(contentsOf: destination)
                #expect(response.value == destination)
                #expect(written.count == 1 << 20)
                #expect(Array(written) == DownloadPattern.bytes(in: 0..<(1 << 20)))
                #expect(progress.current.last == TransferProgress(completedBytes: 1 << 20, totalBytes: 1 << 20))
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["1MiB.bin"])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func refusesABodyOverTheLimit(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = client(server, transport) { $0.maximumResponseSize = 64 * 1024 }
                await #expect {
                    try await client.send(Request<Data>.get("/downloads/1MiB.bin"))
                } throws: { error in
                    guard case .responseTooLarge(64 * 1024) = error as? HTTPClientError else { return false }
                    return true
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func streamsNDJSONEvents(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let response = try await client(server, transport).stream(
                    Request<Void>.get("/events", query: [.init(name: "count", value: "12")])
                )
                #expect(response.head.headerFields[.contentType]?.hasPrefix("application/x-ndjson") == true)
                var events: [PhotoMetadata] = []
                for try await event in response.body.jsonLines(of: PhotoMetadata.self) { events.append(event) }
                #expect(events.count == 12)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func streamsServerSentEvents(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let request = Request<Void>.get(
                    "/events",
                    query: [.init(name: "count", value: "5"), .init(name: "format", value: "sse")]
                )
                let response = try await client(server, transport).stream(request)
                var updates: [PhotoMetadata] = []
                for try await event in response.body.serverSentEvents() {
                    updates.append(try event.decode(PhotoMetadata.self))
                }
                #expect(updates.count == 5)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func followsRedirectsAndDropsCredentialsAcrossOrigins(_ kind: TransportKind) async throws {
        struct Redirected: Decodable { var redirected: Bool }
        try await withServer { server in
            try await kind.with { transport in
                let client = client(server, transport)
                #expect(try await client.send(Request<Redirected>.get("/redirect/3")).value.redirected)
                await #expect {
                    try await self.client(server, transport) { $0.redirectPolicy = .follow(maximum: 2) }
                        .send(Request<Redirected>.get("/redirect/3"))
                } throws: { error in
                    guard case .tooManyRedirects(2) = error as? HTTPClientError else { return false }
                    return true
                }
                // 127.0.0.1 and localhost are different origins.
                let elsewhere = "http://localhost:\(server.port)/echo/headers"
                let echoed = try await client.send(
                    Request<[String: String]>.get("/redirect-to", query: [.init(name: "url", value: elsewhere)])
                        .header(.authorization, "Bearer secret")
                ).value
                #expect(echoed.keys.contains { $0.lowercased() == "authorization" } == false)
                let sameOrigin = try await client.send(
                    Request<[String: String]>.get("/redirect-to", query: [.init(name: "url", value: "/echo/headers")])
                        .header(.authorization, "Bearer secret")
                ).value
                #expect(sameOrigin.first { $0.key.lowercased() == "authorization" }?.value == "Bearer secret")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func retriesA503AfterRetryAfter(_ kind: TransportKind) async throws {
        struct Flaky: Decodable { var attempts: Int }
        try await withServer { server in
            try await kind.with { transport in
                // An immediate clock: the test checks the retries, not the waiting.
                let retry = RetryMiddleware(policy: RetryPolicy(maximumAttempts: 4), clock: ImmediateClock())
                let client = client(server, transport, middleware: [retry])
                let response = try await client.send(
                    Request<Flaky>.get("/flaky/\(kind)", query: [.init(name: "failures", value: "2")])
                )
                #expect(response.value.attempts == 3)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func sendsBasicCredentials(_ kind: TransportKind) async throws {
        struct Profile: Decodable { var id: String }
        try await withServer { server in
            try await kind.with { transport in
                let basic = BasicAuthentication(username: "astro", password: "stardust-42")
                let profile = try await client(server, transport, middleware: [basic]).send(
                    Request<Profile>.get("/basic/profile")
                )
                #expect(profile.value.id == "astro")
            }
        }
    }

    /// Only on AsyncHTTPClient: FoundationNetworking (Swift 6.3.1) never
    /// completes a task whose response is a 401 with `WWW-Authenticate: Basic`
    /// when no credential is offered (swift-corelibs-foundation #5456), so
    /// the challenge cannot reach the middleware there; `sends: .always`
    /// (above) avoids the challenge.
    @Test func answersABasicAuthChallenge() async throws {
        struct Profile: Decodable { var id: String }
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                await #expect {
                    try await client(server, transport).send(Request<Profile>.get("/basic/profile"))
                } throws: { error in
                    (error as? HTTPClientError)?.responseHead?.headerFields[.wwwAuthenticate]?.hasPrefix("Basic")
                        == true
                }
                let basic = BasicAuthentication(username: "astro", password: "stardust-42", sends: .afterChallenge)
                let profile = try await client(server, transport, middleware: [basic]).send(
                    Request<Profile>.get("/basic/profile")
                )
                #expect(profile.value.id == "astro")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func timesOutAndCancelsARequestInFlight(_ kind: TransportKind) async throws {
        let events = ServerLogEvents()
        try await withServer({ $0.logger = events.logger() }) { server in
            try await kind.with { transport in
                let client = client(server, transport)
                await #expect {
                    try await client.send(
                        Request<Void>.get("/slow", query: [.init(name: "ms", value: "3000")]).timeout(
                            .milliseconds(100)
                        )
                    )
                } throws: { error in
                    guard case .timedOut = error as? HTTPClientError else { return false }
                    return true
                }
                try await events.first(containing: "Slow answer: waiting")

                let call = Task {
                    try await client.send(Request<Void>.get("/slow", query: [.init(name: "ms", value: "10000")]))
                }
                // Cancelled once the server has it, not before it is sent.
                try await events.first(containing: "Slow answer: waiting")
                call.cancel()
                await #expect(throws: CancellationError.self) { try await call.value }
            }
        }
    }

    /// A request with no timeout of its own still ends when the server
    /// sends nothing: both transports give up after their read timeout
    /// (60 s by default, shortened here), with the same error.
    @Test(arguments: TransportKind.allCases)
    func aStalledServerEndsARequestWithoutATimeoutAtTheReadTimeout(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with(readTimeout: .seconds(1)) { transport in
                let error = await #expect(throws: HTTPClientError.self) {
                    try await client(server, transport).send(
                        Request<Void>.get("/slow", query: [.init(name: "ms", value: "10000")])
                    )
                }
                guard case let .timedOut(after)? = error else {
                    Issue.record("\(String(describing: error)) is no timeout")
                    return
                }
                #expect(after == .seconds(1))
            }
        }
    }

    @Test func bothTransportsDefaultToAReadTimeoutOfSixtySeconds() {
        #expect(URLSessionTransport.defaultConfiguration().timeoutIntervalForRequest == 60)
        #expect(AsyncHTTPClientTransport.configuration().timeout.read == .seconds(60))
        #expect(AsyncHTTPClientTransport.defaultReadTimeout == .seconds(60))
    }

    /// Where a call of the cancellation stress test is cancelled.
    enum CancellationPoint: CaseIterable {
        /// Before it is sent: it must end with `CancellationError`.
        case beforeSending
        /// A random moment after the transport has it: waiting for the head
        /// or reading the body, or too late.
        case afterHandingOver
        /// Not at all: it must succeed, with the right body.
        case never
    }

    /// 1,000 requests, each cancelled before it is sent, at a random moment
    /// once the transport has it, or not at all: every call ends with its
    /// value or `CancellationError`, the uncancelled ones with the right
    /// value, and nothing is left in flight.
    @Test(arguments: TransportKind.allCases)
    func cancellationStress(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                var generator = SystemRandomNumberGenerator()
                let outcomes = LockedValue([CancellationPoint: (succeeded: Int, cancelled: Int)]())
                for batch in 0..<20 {
                    await withTaskGroup(of: Void.self) { group in
                        for index in 0..<50 {
                            let download = index.isMultiple(of: 3)
                            let path = download ? "/downloads/stress.bin" : "/json/items"
                            let query: [URLQueryItem] = download ? [.init(name: "bytes", value: "200000")] : []
                            let point = CancellationPoint.allCases.randomElement(using: &generator) ?? .never
                            let yields = Int.random(in: 0..<200, using: &generator)
                            let (handOvers, reporter) = AsyncStream.makeStream(of: Void.self)
                            let client = client(
                                server,
                                transport,
                                middleware: [RecordingMiddleware { _ in reporter.yield() }]
                            )
                            let request = Task {
                                defer { reporter.finish() }
                                if point == .beforeSending { withUnsafeCurrentTask { $0?.cancel() } }
                                return try await client.send(Request<Data>(path: path, query: query))
                            }
                            group.addTask {
                                if point == .afterHandingOver {
                                    for await _ in handOvers { break }
                                    for _ in 0..<yields { await Task.yield() }
                                    request.cancel()
                                }
                                switch await request.result {
                                case .success(let response):
                                    let body = response.value
                                    if download {
                                        #expect(body == Data(DownloadPattern.bytes(in: 0..<200_000)), "batch \(batch)")
                                    } else {
                                        #expect((try? JSONDecoder().decode([Item].self, from: body))?.count == 20)
                                    }
                                    outcomes.withLock { $0[point, default: (0, 0)].succeeded += 1 }
                                case .failure(let error):
                                    #expect(error is CancellationError, "batch \(batch), cancelled \(point): \(error)")
                                    outcomes.withLock { $0[point, default: (0, 0)].cancelled += 1 }
                                }
                            }
                        }
                    }
                }
                let counts = outcomes.current
                #expect(counts[.beforeSending]?.succeeded ?? 0 == 0)
                #expect(counts[.never]?.cancelled ?? 0 == 0)
                #expect(counts[.afterHandingOver]?.cancelled ?? 0 > 0)
                if let session = transport as? URLSessionTransport {
                    // Nothing left in flight: returns once URLSession has torn
                    // down every cancelled task (the time limit fails it otherwise).
                    try await session.waitUntilIdle()
                }
                // The transport still works afterwards.
                let items = try await client(server, transport).send(Request<[Item]>.get("/json/items")).value
                #expect(items.count == 20)
            }
        }
    }
}
