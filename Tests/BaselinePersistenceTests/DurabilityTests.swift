import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

@Suite("Durability", .timeLimit(.minutes(2)))
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
        process.terminationHandler = { exitedSink.yield($0.terminationStatus); exitedSink.finish() }
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
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM item"), try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(count == 100)
        #expect(check == "ok")
    }
}
