import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineSync
import BaselineTesting
import Foundation
import GRDB
import SpacePhotosCore
import SpacePhotosServer
import Testing

/// A device's sync killed (SIGKILL, no cleanup) mid-push and mid-pull, 50
/// times, against the real server: after each kill the device's database is
/// whole, its cursor never passes a row it lacks, every item it holds is on
/// the server or still in its outbox, and nothing is there twice; at the end
/// every device and the server hold each item once, with its last text.
///
/// The run's seed is printed; `SYNC_CRASH_SEED=<seed>` replays the same
/// writes and kill points (where a random kill lands in time still varies).
@Suite("Sync: a device killed mid-push and mid-pull", .timeLimit(.minutes(5)))
struct SyncCrashTests {
    /// Where the probe waits for its kill (see Tests/SyncCrashProbe).
    static let points = ["before-push", "after-push", "after-pull", "mid-apply", "none"]

    @Test func killedFiftyTimesMidPushAndMidPullLosesAndDuplicatesNothing() async throws {
        let seed =
            ProcessInfo.processInfo.environment["SYNC_CRASH_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("SyncCrashTests seed: \(seed) (SYNC_CRASH_SEED=\(seed) replays it)")
        var random = FaultRandom(seed: seed)
        // Under ThreadSanitizer (CI's second run) five rounds: every child
        // process is several times slower, and shares the two cores with
        // the rest of the run, whose tests have one-minute limits.
        let rounds = Self.underThreadSanitizer ? 5 : 50

        let directory = try TemporaryDirectory()
        let transport = AsyncHTTPClientTransport()
        do {
            try await run(rounds: rounds, seed: seed, random: &random, in: directory, transport: transport)
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    func run(
        rounds: Int,
        seed: UInt64,
        random: inout FaultRandom,
        in directory: TemporaryDirectory,
        transport: AsyncHTTPClientTransport
    ) async throws {
        let serverFile = directory.url.appendingPathComponent("server.sqlite")
        let deviceFile = directory.url.appendingPathComponent("device.sqlite")
        try await withServer({ $0.syncStorage = .sqlite(serverFile) }) { server in
            let token = try await AuthAPI(client: server.client)
                .logIn(for: User.ID(rawValue: "astro"), with: "stardust-42").rawValue
            // The killed device's file, opened here between its runs; and a
            // second device of the member, so that every pull has rows to apply.
            var storage = GRDB.Configuration()
            storage.busyMode = .timeout(5)
            let device = try await SQLiteDatabase.open(
                at: deviceFile,
                migrator: TodoSchema.migrator,
                configuration: storage
            )
            let repository = TodoRepository(database: device)
            let peer = try await TodoDevice(server: server, token: token, transport: transport)
            var readOnly = GRDB.Configuration()
            readOnly.readonly = true
            let serverRows = try DatabaseQueue(path: serverFile.path, configuration: readOnly)

            // Each item's text now, by its first text: what must come out.
            var expected: [String: String] = [:]
            var deviceItems: [String] = []
            var kills: [String: Int] = [:]
            for round in 1...rounds {
                for n in 0..<Int.random(in: 1...5, using: &random) {
                    let text = "r\(round) device \(n)"
                    try await repository.add(text)
                    expected[text] = text
                    deviceItems.append(text)
                }
                if Bool.random(using: &random), let first = deviceItems.randomElement(using: &random) {
                    // An edit of an item that may be on the server already.
                    let current = try #require(expected[first])
                    let id = try #require(try await repository.all().first { $0.text == current }?.id)
                    try await repository.edit(id: id, text: current + "'")
                    expected[first] = current + "'"
                }
                for n in 0..<Int.random(in: 1...5, using: &random) {
                    let text = "r\(round) peer \(n)"
                    try await peer.repository.add(text)
                    expected[text] = text
                }
                try await peer.engine.syncOnce()

                let point = try #require(Self.points.randomElement(using: &random))
                let probe = try SyncProbe(database: deviceFile, server: server.baseURL, token: token, point: point)
                // With no hold, the kill lands after a random line: in a
                // request, in a transaction applying a page, or between.
                let killAfter = point == "none" ? Int.random(in: 1...12, using: &random) : Int.max
                var lines: [String] = []
                for await line in probe.lines {
                    lines.append(line)
                    if line == "HELD" || lines.count == killAfter { break }
                }
                let killed = await probe.kill()
                kills[killed ? point : "finished first", default: 0] += 1
                if point != "none" {
                    #expect(lines.last == "HELD", "round \(round), seed \(seed): \(lines)")
                }

                try await Self.checkConsistency(
                    of: device,
                    against: serverRows,
                    "round \(round) (\(point)), seed \(seed)"
                )
            }
            print("SyncCrashTests kills: \(kills.sorted { $0.key < $1.key })")

            // Quiescence: the killed device syncs to the end, the peer catches
            // up, and a new device starts from nothing.
            let engine = SyncEngine(
                database: device,
                schema: TodoSchema.sync,
                server: HTTPSyncServer(
                    client: HTTPClient(
                        baseURL: server.baseURL,
                        transport: transport,
                        middleware: [BearerAuthentication(token: token)]
                    ),
                    usesLiveChannel: false
                )
            )
            try await engine.syncOnce()
            try await peer.engine.syncOnce()
            let fresh = try await TodoDevice(server: server, token: token, transport: transport)
            try await fresh.engine.syncOnce()

            let want = expected.values.sorted()
            #expect(try await repository.all().map(\.text).sorted() == want, "seed \(seed)")
            #expect(try await peer.texts().sorted() == want, "seed \(seed)")
            #expect(try await fresh.texts().sorted() == want, "seed \(seed)")
            let onServer = try await serverRows.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_row WHERE tbl = 'todo'")
            }
            #expect(onServer == want.count, "seed \(seed)")
            #expect(try await device.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM _sync_outbox") } == 0)
            try serverRows.close()
            try await device.close()
        }
    }

    /// What must hold of the device's database whenever its sync dies.
    static func checkConsistency(
        of device: SQLiteDatabase,
        against server: DatabaseQueue,
        _ context: String
    ) async throws {
        let local = try await device.read { db in
            (
                integrity: try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                cursor: try Int64.fetchOne(db, sql: "SELECT value FROM _sync_state WHERE key = 'cursor'") ?? 0,
                items: Set(try String.fetchAll(db, sql: "SELECT uuid FROM todo")),
                repeated: try String.fetchAll(db, sql: "SELECT text FROM todo GROUP BY text HAVING count(*) > 1"),
                pending: Set(
                    try String.fetchAll(
                        db,
                        sql: "SELECT row_id FROM _sync_outbox WHERE tbl = 'todo' AND failure IS NULL"
                    )
                ),
                refused: try Int.fetchOne(db, sql: "SELECT count(*) FROM _sync_outbox WHERE failure IS NOT NULL")
            )
        }
        let rows = try await server.read { db in
            try Row.fetchAll(db, sql: "SELECT row_id, seq FROM sync_row WHERE tbl = 'todo'").map {
                (id: $0["row_id"] as String, seq: $0["seq"] as Int64)
            }
        }
        let onServer = Set(rows.map(\.id))
        let latest = rows.map(\.seq).max() ?? 0
        let epoch = try await server.read { db in try Int64.fetchOne(db, sql: "SELECT epoch FROM sync_epoch") } ?? 0
        // The device holds the server's cursor: the data's epoch and a `seq`.
        let position = try #require(SyncCursor(local.cursor, epoch: epoch)?.seq, "\(context): another epoch's cursor")

        #expect(local.integrity == "ok", "\(context)")
        #expect(local.refused == 0, "\(context): a change was refused")
        #expect(local.repeated.isEmpty, "\(context): items there twice: \(local.repeated)")
        // The cursor moves with the page it ends, in one transaction.
        #expect(position <= latest, "\(context): cursor \(position) past the server's \(latest)")
        let skipped = rows.filter { $0.seq <= position && !local.items.contains($0.id) }
        #expect(skipped.isEmpty, "\(context): the cursor passed rows never applied: \(skipped)")
        // A local item the server lacks is still waiting to be sent.
        let lost = local.items.subtracting(onServer).subtracting(local.pending)
        #expect(lost.isEmpty, "\(context): items neither on the server nor in the outbox: \(lost)")
    }

    static let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}

/// The SyncCrashProbe child process, its output as lines.
struct SyncProbe {
    let process = Process()
    let lines: AsyncStream<String>
    private let exited: AsyncStream<Void>

    init(database: URL, server: URL, token: String, point: String) throws {
        process.executableURL = try Self.binary()
        process.arguments = [database.path, server.absoluteString, token, point]
        let output = Pipe()
        process.standardOutput = output
        let (exited, exitedSink) = AsyncStream.makeStream(of: Void.self)
        self.exited = exited
        process.terminationHandler = { _ in exitedSink.finish() }
        let (lines, lineSink) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let pending = LockedValue("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                lineSink.finish()
                return
            }
            let complete = pending.withLock { pending -> [String] in
                pending += String(decoding: data, as: UTF8.self)
                var parts = pending.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                pending = parts.removeLast()
                return parts
            }
            for line in complete { lineSink.yield(line) }
        }
        try process.run()
    }

    /// SIGKILLs the probe and waits until it is gone; whether the kill
    /// ended it (false: it had finished its cycle and exited first).
    func kill() async -> Bool {
        Foundation.kill(process.processIdentifier, SIGKILL)
        for await _ in exited {}
        if process.terminationReason == .exit {
            #expect(process.terminationStatus == 0, "the probe failed on its own")
            return false
        }
        return true
    }

    /// The probe's binary, built beside this test bundle.
    static func binary() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map {
            $0.appendingPathComponent("SyncCrashProbe")
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: candidates[0].path])
        }
        return found
    }
}
