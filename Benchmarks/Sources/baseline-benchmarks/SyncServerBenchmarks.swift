import BaselineAsyncHTTPClient
import BaselineHTTP
import BaselinePersistence
import BaselineSync
import Foundation
import Logging
import PostgresNIO
import SpacePhotosCore
import SpacePhotosServer

/// BaselineSync end to end: devices (the app's to-do database and a
/// ``SyncEngine``) against the example server in a child process, over
/// loopback HTTP and the `GET /sync/live` WebSocket.
///
/// - **Edit → live query**: device A edits a to-do; how soon device B's live
///   query shows it (A's push, the server's announcement, B's pull and write).
/// - **First sync**: a new device pulls a member's 1,000 and 10,000 to-dos;
///   its time and how much the device's and the server's resident memory
///   grew (flat when pages stream, not one body).
/// - **Pushes per second**: 50 clients, each a member of its own, each
///   pushing one change at a time, on every storage: in memory, an SQLite
///   file, PostgreSQL, and two server processes sharing PostgreSQL.
///
/// PostgreSQL rows run when `BASELINE_POSTGRES_URL` names a database
/// (`scripts/postgres start`); each run uses a schema of its own, dropped after.
enum SyncServerBenchmarks {
    static func run() async throws {
        print("== sync through the example server (a child process, loopback)")
        let postgres = ProcessInfo.processInfo.environment["BASELINE_POSTGRES_URL"].flatMap {
            $0.isEmpty ? nil : URL(string: $0)
        }
        if postgres == nil { print("   (PostgreSQL rows skipped: set BASELINE_POSTGRES_URL)") }
        let transport = AsyncHTTPClientTransport()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-server-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await liveQueryLatency(transport: transport, directory: directory)
            try await firstSync(transport: transport, directory: directory, postgres: postgres)
            try await pushThroughput(transport: transport, directory: directory, postgres: postgres)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        // Awaited, not left to a task the process may exit before.
        try await transport.shutdown()
    }

    // MARK: - Edit → live query

    static func liveQueryLatency(transport: AsyncHTTPClientTransport, directory: URL) async throws {
        let server = try ServerProcess.start(storage: .memory, members: 1)
        defer { server.stop() }
        let token = try await server.logIn(member: 0, transport: transport)
        let a = try await Device(server: server.baseURL, token: token, transport: transport, in: directory)
        let b = try await Device(server: server.baseURL, token: token, transport: transport, in: directory)
        let runs = [a, b].map { device in Task { try await device.engine.run() } }
        defer { for run in runs { run.cancel() } }
        for device in [a, b] {
            for await status in device.engine.statuses where status.isLive && status.activity == .idle { break }
        }
        guard let item = try await a.repository.add("edit -1").id else { throw BenchmarkError.setup("no id") }
        var list = b.repository.live().makeAsyncIterator()
        while try await list.next()?.first?.text != "edit -1" {}

        let clock = ContinuousClock()
        var measurement = Measurement(name: "edit on A → B's live query (WebSocket)")
        for index in 0..<320 {
            let start = clock.now
            _ = try await a.repository.edit(id: item, text: "edit \(index)")
            while try await list.next()?.first?.text != "edit \(index)" {}
            if index >= 20 { measurement.samples.append(start.duration(to: clock.now)) }
        }
        print(measurement.reportWithP99(target: "p99 ≤ 100 ms"))
    }

    // MARK: - First sync

    static func firstSync(transport: AsyncHTTPClientTransport, directory: URL, postgres: URL?) async throws {
        var storages: [(String, ServerProcess.Storage)] = [
            ("memory", .memory), ("SQLite", .sqlite(directory.appendingPathComponent("first-sync.sqlite"))),
        ]
        if let postgres { storages.append(("PostgreSQL", .postgres(postgres, schema: Self.newSchema()))) }
        let counts = [1_000, 10_000]
        for (name, storage) in storages {
            let server = try ServerProcess.start(storage: storage, members: counts.count)
            defer { server.stop() }
            for (member, count) in counts.enumerated() {
                let token = try await server.logIn(member: member, transport: transport)
                // The member's to-dos, added on one device and pushed.
                let seeder = try await Device(server: server.baseURL, token: token, transport: transport, in: directory)
                try await seeder.repository.add(
                    contentsOf: (0..<count).map { "To-do number \($0), with a few words" }
                )
                try await seeder.engine.syncOnce()

                var measurement = Measurement(name: "first sync, \(count) to-dos (\(name))")
                var devicePeak = 0
                var serverPeak = 0
                for round in 0..<6 {
                    let device = try await Device(
                        server: server.baseURL,
                        token: token,
                        transport: transport,
                        in: directory
                    )
                    let (deviceBefore, serverBefore) = (Memory.residentBytes(), server.residentBytes)
                    Memory.resetPeak()
                    server.resetPeak()
                    let elapsed = try await ContinuousClock().measure { try await device.engine.syncOnce() }
                    guard try await device.repository.all().count == count else {
                        throw BenchmarkError.setup("the device did not get all \(count) to-dos")
                    }
                    // The first round warms the server's caches and code.
                    guard round > 0 else { continue }
                    measurement.samples.append(elapsed)
                    devicePeak = max(devicePeak, Memory.peakResidentBytes() - deviceBefore)
                    serverPeak = max(serverPeak, server.peakResidentBytes - serverBefore)
                    try await device.close()
                }
                print(
                    measurement.report(target: count == 10_000 ? "≤ 2 s" : "")
                        + "  peak growth: device \(megabytes(devicePeak)), server \(megabytes(serverPeak))"
                )
            }
        }
        if case .postgres(let url, let schema) = storages.last?.1 { try await dropSchema(schema, at: url) }
    }

    // MARK: - Pushes per second

    static func pushThroughput(transport: AsyncHTTPClientTransport, directory: URL, postgres: URL?) async throws {
        let clients = 50
        let pushesPerClient = 100
        var rows: [(String, [ServerProcess.Storage])] = [
            ("memory", [.memory]),
            ("SQLite file", [.sqlite(directory.appendingPathComponent("pushes.sqlite"))]),
        ]
        var schemas: [String] = []
        if let postgres {
            let one = newSchema()
            let two = newSchema()
            schemas = [one, two]
            rows.append(("PostgreSQL", [.postgres(postgres, schema: one)]))
            rows.append(
                ("PostgreSQL, 2 servers", [.postgres(postgres, schema: two), .postgres(postgres, schema: two)])
            )
        }
        // Every row's servers and clients first, then the rounds interleaved,
        // so that the machine's drift touches every row alike.
        var setups: [(name: String, servers: [ServerProcess], pushers: [HTTPSyncServer])] = []
        defer { for setup in setups { for server in setup.servers { server.stop() } } }
        for (name, storages) in rows {
            let servers = try storages.map { try ServerProcess.start(storage: $0, members: clients) }
            setups.append((name, servers, []))
            // Client i is member i, on server i mod n (a balancer's round robin).
            for member in 0..<clients {
                let server = servers[member % servers.count]
                let token = try await server.logIn(member: member, transport: transport)
                let client = HTTPClient(
                    baseURL: server.baseURL,
                    transport: transport,
                    middleware: [BearerAuthentication(token: token)]
                )
                setups[setups.count - 1].pushers.append(HTTPSyncServer(client: client, usesLiveChannel: false))
            }
        }
        var rates: [String: [Double]] = [:]
        for round in 0..<4 {
            for setup in setups {
                let elapsed = try await ContinuousClock().measure {
                    try await withThrowingDiscardingTaskGroup { group in
                        for (member, pusher) in setup.pushers.enumerated() {
                            group.addTask {
                                for index in 0..<pushesPerClient {
                                    _ = try await pusher.push(Self.push(member: member, round: round, index: index))
                                }
                            }
                        }
                    }
                }
                // The first round warms connections, caches and tables up.
                if round > 0 {
                    rates[setup.name, default: []].append(Double(clients * pushesPerClient) / seconds(elapsed))
                }
            }
        }
        for setup in setups {
            let sorted = (rates[setup.name] ?? []).sorted()
            guard let lowest = sorted.first, let highest = sorted.last else { continue }
            print(
                "pushes/s, \(clients) clients, 1 change each (\(setup.name))".padding(
                    toLength: 60,
                    withPad: " ",
                    startingAt: 0
                )
                    + String(
                        format: " median %.0f  (%.0f–%.0f, n=%d)",
                        sorted[sorted.count / 2],
                        lowest,
                        highest,
                        sorted.count
                    )
            )
        }
        if let postgres { for schema in schemas { try await dropSchema(schema, at: postgres) } }
    }

    /// One edit of one of the member's 20 rows, stamped now.
    static func push(member: Int, round: Int, index: Int) -> SyncPush {
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        let change = SyncChange(
            id: "m\(member)-r\(round)-\(index)",
            table: "todo",
            row: "row-\(member)-\(index % 20)",
            timestamp: HybridTimestamp(milliseconds: now, counter: UInt32(index), node: UInt64(member)),
            fields: ["text": .text("Edit \(index) of round \(round)"), "date": .real(Double(now) / 1000)]
        )
        return SyncPush(changes: [change])
    }

    // MARK: - Parts

    /// A device: the app's to-do database in a new file and its sync engine.
    struct Device {
        let database: SQLiteDatabase
        let repository: TodoRepository
        let engine: SyncEngine

        init(server: URL, token: String, transport: AsyncHTTPClientTransport, in directory: URL) async throws {
            database = try await SQLiteDatabase.open(
                at: directory.appendingPathComponent("device-\(UUID()).sqlite"),
                migrator: TodoSchema.migrator
            )
            repository = TodoRepository(database: database)
            let client = HTTPClient(
                baseURL: server,
                transport: transport,
                middleware: [BearerAuthentication(token: token)]
            )
            engine = SyncEngine(database: database, schema: TodoSchema.sync, server: HTTPSyncServer(client: client))
        }

        func close() async throws { try await database.close() }
    }

    /// The example server in a child process (`baseline-benchmarks
    /// sync-serve`), with members `member-0`… and the given storage.
    struct ServerProcess {
        enum Storage {
            case memory
            case sqlite(URL)
            case postgres(URL, schema: String)

            var arguments: [String] {
                switch self {
                case .memory: []
                case .sqlite(let file): ["--sqlite", file.path]
                case .postgres(let url, let schema): ["--postgres", url.absoluteString, "--schema", schema]
                }
            }
        }

        let process: BenchmarkServerProcess
        var baseURL: URL { process.baseURL }
        var pid: String { String(process.processIdentifier) }
        var residentBytes: Int { Memory.residentBytes(of: pid) }
        var peakResidentBytes: Int { Memory.peakResidentBytes(of: pid) }
        func resetPeak() { Memory.resetPeak(of: pid) }

        static func start(storage: Storage, members: Int) throws -> ServerProcess {
            ServerProcess(
                process: try BenchmarkServerProcess(
                    arguments: ["sync-serve", "--members", String(members)] + storage.arguments
                )
            )
        }

        func stop() { process.stop() }

        func logIn(member: Int, transport: AsyncHTTPClientTransport) async throws -> String {
            try await AuthAPI(client: HTTPClient(baseURL: baseURL, transport: transport))
                .logIn(for: User.ID(rawValue: "member-\(member)"), with: "password-\(member)").rawValue
        }

        /// Runs in the child: parses `sync-serve`'s arguments and serves.
        static func serve(_ arguments: [String]) async throws -> Never {
            func value(_ name: String) -> String? {
                arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            }
            let members = value("--members").flatMap { Int($0) } ?? 1
            var configuration = ExampleServer.Configuration(
                users: (0..<members).map {
                    DemoUser(
                        id: "member-\($0)",
                        password: "password-\($0)",
                        nickname: "Member \($0)",
                        birthday: "2000-01-01"
                    )
                },
                // Logins are not what is measured.
                passwordHasher: PasswordHasher(cost: 4)
            )
            if let path = value("--sqlite") {
                configuration.syncStorage = .sqlite(URL(fileURLWithPath: path))
            } else if let url = value("--postgres").flatMap({ URL(string: $0) }) {
                configuration.syncStorage = .postgres(url, schema: value("--schema") ?? "public")
            }
            try await BenchmarkServerProcess.serve(configuration)
        }
    }

    static func newSchema() -> String {
        "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Removes a benchmark's schema and its tables.
    static func dropSchema(_ schema: String, at url: URL) async throws {
        var logger = Logger(label: "benchmarks.postgres")
        logger.logLevel = .warning
        let connection = try await PostgresConnection.connect(
            configuration: try PostgresSyncStore.connectionConfiguration(for: url),
            id: 1,
            logger: logger
        )
        _ = try? await connection.query("DROP SCHEMA IF EXISTS \(unescaped: "\"\(schema)\"") CASCADE", logger: logger)
        try await connection.close()
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(max(bytes, 0)) / 1_048_576)
    }
}
