import BaselineConcurrency
import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

@Suite("Durability", .timeLimit(.minutes(4)))
struct DurabilityTests {
    /// The helper executable, built next to this test bundle.
    static func helperURL() throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            bundle.appendingPathComponent("PersistenceCrashHelper"),
            // macOS runs tests from inside an .xctest bundle.
            bundle.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("PersistenceCrashHelper"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("PersistenceCrashHelper"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: candidates[0].path])
        }
        return found
    }

    @Test func aProcessKilledInsideAWriteTransactionLeavesTheDatabaseConsistent() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("crash.sqlite")

        let process = Process()
        process.executableURL = try Self.helperURL()
        process.arguments = [url.path]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        let (exited, exitedSink) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = {
            exitedSink.yield($0.terminationStatus)
            exitedSink.finish()
        }
        try process.run()

        // Wait for the helper to say it is inside the transaction.
        let (chunks, chunkSink) = AsyncStream.makeStream(of: Data.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { chunkSink.finish() } else { chunkSink.yield(data) }
        }
        var seen = ""
        for await chunk in chunks {
            seen += String(decoding: chunk, as: UTF8.self)
            if seen.contains("IN_TRANSACTION") { break }
        }
        output.fileHandleForReading.readabilityHandler = nil
        #expect(seen.contains("IN_TRANSACTION"))
        kill(process.processIdentifier, SIGKILL)
        for await _ in exited {}
        #expect(process.terminationReason == .uncaughtSignal)

        // The committed rows are all there, the uncommitted ones are not, and
        // SQLite finds nothing wrong.
        let database = try await SQLiteDatabase.open(at: url, migrator: DatabaseMigrator())
        let (count, check) = try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM item"),
                try String.fetchOne(db, sql: "PRAGMA integrity_check")
            )
        }
        #expect(count == 100)
        #expect(check == "ok")
    }

    /// The helper in `--loop` mode, with its output as a stream of lines.
    struct LoopingWriter {
        let process: Process
        let lines: AsyncStream<String>
        let exited: AsyncStream<Int32>

        init(database url: URL) throws {
            process = Process()
            process.executableURL = try DurabilityTests.helperURL()
            process.arguments = ["--loop", url.path]
            let output = Pipe()
            process.standardOutput = output
            let (exited, exitedSink) = AsyncStream.makeStream(of: Int32.self)
            self.exited = exited
            process.terminationHandler = {
                exitedSink.yield($0.terminationStatus)
                exitedSink.finish()
            }
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

        /// Kills the process (no cleanup of any kind) and waits until it is gone.
        func kill() async {
            Foundation.kill(process.processIdentifier, SIGKILL)
            for await _ in exited {}
        }
    }

    /// Whether this test binary was built with ThreadSanitizer, which makes
    /// every child process several times slower.
    static var underThreadSanitizer: Bool {
        dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
    }

    /// 50 times: a writer of 10,000-row transactions is killed at a random
    /// point of its output — mid-transaction, mid-commit or between two —
    /// and the file it leaves passes SQLite's integrity check and holds only
    /// whole transactions.
    @Test func killedFiftyTimesWhileWritingTheDatabaseKeepsWholeTransactions() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("crash-loop.sqlite")
        var generator = SystemRandomNumberGenerator()
        var killedInATransaction = 0
        // Under ThreadSanitizer (CI's second run), ten rounds: the child
        // has no threads of interest, and 50 would outlast the time limit.
        let rounds = Self.underThreadSanitizer ? 10 : 50
        for round in 1...rounds {
            let writer = try LoopingWriter(database: url)
            // Each transaction prints ten "ROWS" lines and a "COMMITTED".
            let linesBeforeKilling = Int.random(in: 1...22, using: &generator)
            var seen = 0
            var last = ""
            for await line in writer.lines {
                seen += 1
                last = line
                if seen == linesBeforeKilling { break }
            }
            await writer.kill()
            #expect(writer.process.terminationReason == .uncaughtSignal, "round \(round)")
            if last == "ROWS" { killedInATransaction += 1 }

            let database = try await SQLiteDatabase.open(at: url, migrator: DatabaseMigrator())
            let (count, check) = try await database.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? -1,
                    try String.fetchOne(db, sql: "PRAGMA integrity_check")
                )
            }
            try await database.close()
            #expect(check == "ok", "round \(round)")
            #expect(count >= 0 && count.isMultiple(of: 10_000), "round \(round): \(count) rows")
        }
        // The kills did land inside transactions, not only between them.
        #expect(killedInATransaction > 0)
    }
}
