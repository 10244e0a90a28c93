import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

@testable import BaselineSync

/// A to-do table like an app's, synced, in a real SQLite file.
struct SyncedTodos {
    static let table = SyncedTable("todo", columns: [.text("text"), .real("date"), .blob("tag", isNullable: true)])
    static let schema = SyncSchema([table])

    static func migrator(before: (@Sendable (Database) throws -> Void)? = nil) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: todo") { db in
            try db.execute(
                sql:
                    "CREATE TABLE todo (id TEXT PRIMARY KEY NOT NULL, text TEXT NOT NULL, date REAL NOT NULL, tag BLOB)"
            )
            try before?(db)
        }
        schema.registerMigrations(in: &migrator)
        return migrator
    }

    let directory: TemporaryDirectory
    let database: SQLiteDatabase

    init(name: String = "todos.sqlite", before: (@Sendable (Database) throws -> Void)? = nil) async throws {
        directory = try TemporaryDirectory()
        database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent(name),
            migrator: Self.migrator(before: before)
        )
    }

    func outbox() async throws -> [SyncChange] {
        try await database.read { db in try LocalReplica.pending(db, limit: 1_000, maximumBytes: .max).map(\.change) }
    }

    func rows() async throws -> [String: String] {
        try await database.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, text FROM todo").map { ($0[0], $0[1]) }
            )
        }
    }
}

@Suite("The local side: writes recorded in the same transaction, pulled rows applied")
struct LocalReplicaTests {
    static func stamp(_ milliseconds: UInt64, node: UInt64 = 99) -> HybridTimestamp {
        HybridTimestamp(milliseconds: milliseconds, counter: 0, node: node)
    }

    @Test func anInsertIsRecordedWithEveryField() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date, tag) VALUES ('a', 'milk', 0.1, x'00ff')")
        }
        let changes = try await todos.outbox()
        #expect(changes.count == 1)
        #expect(changes.first?.table == "todo")
        #expect(changes.first?.row == "a")
        #expect(changes.first?.deleted == false)
        #expect(changes.first?.fields == ["text": .text("milk"), "date": .real(0.1), "tag": .blob(Data([0, 255]))])
    }

    @Test func valuesKeepTheirExactStorageClass() async throws {
        let todos = try await SyncedTodos()
        let reals: [Double] = [0.1, 1e-300, 123_456_789.123_456_78, -0.0, 5e300, Double.leastNonzeroMagnitude]
        try await todos.database.write { db in
            for (index, real) in reals.enumerated() {
                try db.execute(
                    sql: "INSERT INTO todo (id, text, date, tag) VALUES (?, '\"quoted\" ☃\n', ?, NULL)",
                    arguments: ["\(index)", real]
                )
            }
        }
        let changes = try await todos.outbox()
        #expect(changes.map { $0.fields["date"] } == reals.map { .real($0) })
        #expect(changes.allSatisfy { $0.fields["text"] == .text("\"quoted\" ☃\n") && $0.fields["tag"] == .null })
    }

    @Test func anUpdateRecordsOnlyTheFieldsItChangedAndANoOpRecordsNothing() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
            try db.execute(sql: "UPDATE todo SET text = 'oat milk' WHERE id = 'a'")
            try db.execute(sql: "UPDATE todo SET text = 'oat milk' WHERE id = 'a'")
        }
        let changes = try await todos.outbox()
        #expect(changes.count == 2)
        #expect(changes.last?.fields == ["text": .text("oat milk")])
        #expect(changes[0].timestamp < changes[1].timestamp)
    }

    @Test func aDeleteIsRecordedAsATombstone() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
            try db.execute(sql: "DELETE FROM todo WHERE id = 'a'")
        }
        let changes = try await todos.outbox()
        #expect(changes.map(\.deleted) == [false, true])
        #expect(changes.last?.fields == [:])
        #expect(Set(changes.map(\.id)).count == 2)
    }

    @Test func aWriteThatRollsBackLeavesNothingInTheOutbox() async throws {
        struct Abandon: Error {}
        let todos = try await SyncedTodos()
        await #expect(throws: Abandon.self) {
            try await todos.database.write { db in
                try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
                throw Abandon()
            }
        }
        #expect(try await todos.outbox().isEmpty)
    }

    @Test func aSyncedRowKeepsItsPrimaryKey() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
        }
        await #expect(throws: (any Error).self) {
            try await todos.database.write { db in try db.execute(sql: "UPDATE todo SET id = 'b'") }
        }
        #expect(try await todos.rows() == ["a": "milk"])
    }

    @Test func rowsAlreadyThereWhenATableStartsSyncingAreRecorded() async throws {
        let todos = try await SyncedTodos { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('old1', 'one', 1), ('old2', 'two', 2)")
        }
        let changes = try await todos.outbox()
        #expect(Set(changes.map(\.row)) == ["old1", "old2"])
        #expect(changes.allSatisfy { !$0.deleted && $0.fields.count == 3 })
    }

    @Test func aPulledPageIsAppliedWithoutBeingRecordedAndMovesTheCursorAndClock() async throws {
        let todos = try await SyncedTodos()
        let farAhead = Self.stamp(4_000_000_000_000)
        let page = SyncPage(
            rows: [
                SyncRow(
                    table: "todo",
                    row: "r1",
                    state: .write(["text": .text("from B"), "date": .real(2)], at: farAhead)
                ),
                SyncRow(table: "todo", row: "r2", state: .delete(at: Self.stamp(5))),
                SyncRow(table: "unsynced", row: "x", state: .write(["a": .integer(1)], at: Self.stamp(5))),
            ],
            cursor: 42,
            more: false
        )
        let changed = try await todos.database.write { db in
            try LocalReplica.apply(db, page, schema: SyncedTodos.schema)
        }
        #expect(changed == 1)
        #expect(try await todos.rows() == ["r1": "from B"])
        #expect(try await todos.outbox().isEmpty)
        #expect(try await todos.database.read { db in try LocalReplica.cursor(db) } == 42)

        // A local edit made after the pull is ordered after what was pulled,
        // however far ahead the other device's clock ran.
        try await todos.database.write { db in try db.execute(sql: "UPDATE todo SET text = 'mine' WHERE id = 'r1'") }
        let edit = try #require(try await todos.outbox().first)
        #expect(edit.timestamp > farAhead)

        // Applying the same page again changes nothing: the edit stands.
        _ = try await todos.database.write { db in try LocalReplica.apply(db, page, schema: SyncedTodos.schema) }
        #expect(try await todos.rows() == ["r1": "mine"])
    }

    @Test func aLocalEditLaterThanAPulledDeleteKeepsTheRow() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
        }
        let page = SyncPage(
            rows: [SyncRow(table: "todo", row: "a", state: .delete(at: Self.stamp(1)))],
            cursor: 1,
            more: false
        )
        _ = try await todos.database.write { db in try LocalReplica.apply(db, page, schema: SyncedTodos.schema) }
        #expect(try await todos.rows() == ["a": "milk"])
    }

    @Test func aPulledEditLaterThanALocalDeleteBringsTheRowBackWithItsOtherFields() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
            try db.execute(sql: "DELETE FROM todo WHERE id = 'a'")
        }
        let later = Self.stamp(4_000_000_000_000)
        let page = SyncPage(
            rows: [SyncRow(table: "todo", row: "a", state: .write(["text": .text("oat milk")], at: later))],
            cursor: 1,
            more: false
        )
        _ = try await todos.database.write { db in try LocalReplica.apply(db, page, schema: SyncedTodos.schema) }
        #expect(try await todos.rows() == ["a": "oat milk"])
        #expect(try await todos.database.read { db in try Double.fetchOne(db, sql: "SELECT date FROM todo") } == 1)
    }

    @Test func aRowMissingARequiredValueIsKeptOutOfTheTableNotTheBookkeeping() async throws {
        let todos = try await SyncedTodos()
        let page = SyncPage(
            rows: [SyncRow(table: "todo", row: "p", state: .write(["date": .real(3)], at: Self.stamp(9)))],
            cursor: 1,
            more: false
        )
        _ = try await todos.database.write { db in try LocalReplica.apply(db, page, schema: SyncedTodos.schema) }
        #expect(try await todos.rows().isEmpty)
        // The text arrives later: the row appears, whole.
        let rest = SyncPage(
            rows: [SyncRow(table: "todo", row: "p", state: .write(["text": .text("late")], at: Self.stamp(10)))],
            cursor: 2,
            more: false
        )
        _ = try await todos.database.write { db in try LocalReplica.apply(db, rest, schema: SyncedTodos.schema) }
        #expect(try await todos.rows() == ["p": "late"])
    }

    @Test func acknowledgedChangesLeaveTheOutboxForTheRowsKnownState() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1)")
        }
        let change = try #require(try await todos.outbox().first)
        try await todos.database.write { db in try LocalReplica.acknowledge(db, [change.id]) }
        #expect(try await todos.outbox().isEmpty)
        let known = try await todos.database.read { db in try LocalReplica.known(db, "todo", "a") }
        #expect(known == change.state)
    }

    @Test func refusedChangesAreSetAsideAndNotPushedUntilRetried() async throws {
        let todos = try await SyncedTodos()
        try await todos.database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES ('a', 'milk', 1), ('b', 'bread', 2)")
        }
        let first = try #require(try await todos.outbox().first)
        try await todos.database.write { db in
            try LocalReplica.setAside(db, [SyncRefusal.Change(id: first.id, code: .tooLarge, message: "Too long.")])
        }
        #expect(try await todos.outbox().map(\.row) == ["b"])
        let refused = try await todos.database.read { db in try LocalReplica.refused(db) }
        #expect(refused.map(\.1.code) == [.tooLarge])
        try await todos.database.write { db in try LocalReplica.retryRefused(db) }
        #expect(try await todos.outbox().map(\.row) == ["a", "b"])
    }
}
