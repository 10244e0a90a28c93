import BaselinePersistence
import BaselineSync
import Foundation
import GRDB

/// BaselineSync on the device: a first sync of n to-dos from a server that
/// answers from memory, so the figure is the engine's and SQLite's (pages
/// applied, rows written, cursor kept), not the network's or a server's.
enum SyncBenchmarks {
    static func run() async throws {
        print("== sync (device side: pages from memory, into a new SQLite file)")
        for count in [1_000, 10_000] {
            let rows = Self.rows(count)
            let measurement = try await Measurement.run("first sync, \(count) to-dos", iterations: 5, warmup: 1) {
                try await FreshDevice()
            } body: { device in
                try await device.engine(rows).syncOnce()
            }
            print(measurement.report(target: count == 10_000 ? "the whole first sync ≤ 2 s" : ""))
        }
    }

    static let schema = SyncSchema([SyncedTable("todo", idColumn: "uuid", columns: [.text("text"), .real("date")])])

    /// Rows as a server pulls them: each written once, at its own time.
    static func rows(_ count: Int) -> [SyncRow] {
        (0..<count).map { index in
            SyncRow(
                table: "todo",
                row: UUID().uuidString,
                state: .write(
                    [
                        "text": .text("To-do number \(index), with a few words"),
                        "date": .real(1_700_000_000 + Double(index)),
                    ],
                    at: HybridTimestamp(milliseconds: 1_700_000_000_000 + UInt64(index), counter: 0, node: 7)
                )
            )
        }
    }

    /// A new device's database, the app's to-do table and sync's own.
    struct FreshDevice {
        let directory: URL
        let database: SQLiteDatabase

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("todo") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE todo (
                            id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, text TEXT NOT NULL, date REAL NOT NULL
                        )
                        """
                )
            }
            SyncBenchmarks.schema.registerMigrations(in: &migrator)
            database = try await SQLiteDatabase.open(
                at: directory.appendingPathComponent("todos.sqlite"),
                migrator: migrator
            )
        }

        func engine(_ rows: [SyncRow]) -> SyncEngine {
            SyncEngine(database: database, schema: SyncBenchmarks.schema, server: PagedServer(rows: rows))
        }
    }

    /// Answers pulls from `rows`, 500 at a time; takes every push.
    struct PagedServer: SyncServer {
        let rows: [SyncRow]

        func push(_ push: SyncPush) async throws -> SyncPushResult {
            SyncPushResult(applied: push.changes.map(\.id), cursor: Int64(rows.count))
        }

        func pull(after cursor: Int64, limit: Int) async throws -> SyncPage {
            let start = min(Int(clamping: cursor), rows.count)
            let end = min(rows.count, start + limit)
            return SyncPage(rows: Array(rows[start..<end]), cursor: Int64(end), more: end < rows.count)
        }

        func changes() async throws -> AsyncThrowingStream<Int64, any Error>? { nil }
    }
}
