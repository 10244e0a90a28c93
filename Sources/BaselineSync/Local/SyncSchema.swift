import Foundation
public import GRDB

/// The synced tables of a local database, and the migration that makes
/// their changes travel.
///
/// ```swift
/// let schema = SyncSchema([SyncedTable("todo", columns: [.text("text"), .real("date")])])
///
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1: todo") { db in … }   // the app's own tables first
/// schema.registerMigrations(in: &migrator)             // then sync's bookkeeping
/// let database = try await SQLiteDatabase.open(at: url, migrator: migrator)
/// ```
///
/// ## What the migration installs
///
/// Triggers on each synced table record every insert, update and delete
/// in an outbox table, **in the same transaction as the write**: the app
/// writes its tables as it always has, and a crash between its write and
/// the push loses nothing, since both commit or neither does. The triggers
/// are plain SQL (no function registered by the app), so a write from any
/// connection, or from the `sqlite3` shell, is recorded too.
///
/// - An update records only the columns it changed, so that two devices
///   editing different fields of a row both keep their edit.
/// - Each change is stamped by a hybrid logical clock kept in the database
///   (see ``HybridTimestamp``).
/// - A synced row's id never changes (an update of it is refused);
///   delete and insert instead.
/// - Rows already in a table when it becomes synced are recorded as
///   inserts, so that they reach the server too.
///
/// The bookkeeping tables start with `_sync_`; the app reads them only
/// through ``SyncEngine``.
public struct SyncSchema: Sendable, Hashable {
    /// The synced tables.
    public var tables: [SyncedTable]

    /// The schema of `tables`.
    public init(_ tables: [SyncedTable]) {
        self.tables = tables
    }

    /// The table named `name`, if it syncs.
    public func table(named name: String) -> SyncedTable? {
        tables.first { $0.name == name }
    }

    /// Registers sync's migrations, after the app's own: the bookkeeping
    /// tables once, and the triggers again whenever the synced tables or
    /// columns change (the migration's name carries them, so a new column
    /// means a new migration).
    public func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("BaselineSync v1: bookkeeping") { db in
            try Self.createBookkeeping(db)
        }
        let fingerprint = tables.map { table in
            ([table.name, table.idColumn] + table.columns.map(\.name)).joined(separator: ",")
        }.joined(separator: ";")
        migrator.registerMigration("BaselineSync triggers: \(fingerprint)") { db in
            try installTriggers(db)
        }
    }

    static func createBookkeeping(_ db: Database) throws {
        // The clock: one row, advanced by every recorded change.
        try db.execute(
            sql: """
                CREATE TABLE _sync_clock (
                    id INTEGER PRIMARY KEY CHECK (id = 0),
                    ms INTEGER NOT NULL,
                    counter INTEGER NOT NULL,
                    node INTEGER NOT NULL
                );
                CREATE TABLE _sync_outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    change_id TEXT NOT NULL UNIQUE,
                    tbl TEXT NOT NULL,
                    row_id TEXT NOT NULL,
                    at TEXT NOT NULL,
                    deleted INTEGER NOT NULL,
                    fields TEXT NOT NULL,
                    failure TEXT
                );
                CREATE INDEX _sync_outbox_on_row ON _sync_outbox(tbl, row_id);
                CREATE TABLE _sync_row (
                    tbl TEXT NOT NULL,
                    row_id TEXT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (tbl, row_id)
                ) WITHOUT ROWID;
                CREATE TABLE _sync_state (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                CREATE TABLE _sync_table (name TEXT PRIMARY KEY) WITHOUT ROWID;
                """
        )
        // A random node per database: two databases never stamp alike.
        let node = Int64(bitPattern: UInt64.random(in: 1...UInt64.max))
        try db.execute(sql: "INSERT INTO _sync_clock (id, ms, counter, node) VALUES (0, 0, 0, ?)", arguments: [node])
    }

    func installTriggers(_ db: Database) throws {
        let existing = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_sync\\_%' ESCAPE '\\'"
        )
        for name in existing {
            try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
        }
        for table in tables {
            for statement in TriggerSQL(table: table).statements {
                try db.execute(sql: statement)
            }
            let adopted = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM _sync_table WHERE name = ?)",
                arguments: [table.name]
            )
            if adopted != true {
                try db.execute(sql: TriggerSQL(table: table).adoptRows)
                try db.execute(sql: "INSERT INTO _sync_table (name) VALUES (?)", arguments: [table.name])
            }
        }
    }
}

/// The SQL of one table's triggers.
struct TriggerSQL {
    let table: SyncedTable

    private var name: String { table.name.quotedDatabaseIdentifier }
    private var key: String { table.idColumn.quotedDatabaseIdentifier }
    private var tableLiteral: String { table.name.sqlStringLiteral }

    /// Skips recording while ``SyncEngine`` applies pulled rows: the flag is
    /// set and cleared inside the apply's transaction, so no other
    /// transaction ever sees it set.
    private static let notApplying = "(SELECT value FROM _sync_state WHERE key = 'applying') IS NOT 1"

    /// Advances the clock for a local event: the wall clock if it is ahead,
    /// else one more on the counter (the next millisecond past the
    /// counter's 32 bits). SET reads the row as it was.
    private static let tick = """
        UPDATE _sync_clock SET
            counter = CASE WHEN \(wallClock) > ms THEN 0 WHEN counter >= 4294967295 THEN 0 ELSE counter + 1 END,
            ms = CASE WHEN \(wallClock) > ms THEN \(wallClock) WHEN counter >= 4294967295 THEN ms + 1 ELSE ms END
        """
    /// Milliseconds since 1970, from SQLite's own clock.
    private static let wallClock = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
    /// The clock's reading as a ``HybridTimestamp``'s text.
    private static let stamp = "printf('%016x-%08x-%016x', ms, counter, node)"
    private static let changeID = "lower(hex(randomblob(16)))"

    /// A column's value as the outbox's JSON: one key naming the storage
    /// class. Reals travel as 17 significant digits, which read back as the
    /// same double; blobs as hex.
    static func encoded(_ value: String) -> String {
        """
        json(CASE typeof(\(value)) \
        WHEN 'integer' THEN json_object('integer', \(value)) \
        WHEN 'real' THEN json_object('real', printf('%!.17g', \(value))) \
        WHEN 'text' THEN json_object('text', \(value)) \
        WHEN 'blob' THEN json_object('blob', hex(\(value))) \
        ELSE 'null' END)
        """
    }

    private func allFields(of row: String) -> String {
        let pairs = table.columns.map { column in
            "\(column.name.sqlStringLiteral), \(Self.encoded("\(row).\(column.name.quotedDatabaseIdentifier)"))"
        }
        return "json_object(\(pairs.joined(separator: ", ")))"
    }

    private var changedFields: String {
        let parts = table.columns.map { column in
            let name = column.name.quotedDatabaseIdentifier
            return "SELECT \(column.name.sqlStringLiteral) AS name, \(Self.encoded("NEW.\(name)")) AS value "
                + "WHERE OLD.\(name) IS NOT NEW.\(name)"
        }
        return "(SELECT json_group_object(name, json(value)) FROM (\(parts.joined(separator: " UNION ALL "))))"
    }

    private var anyColumnChanged: String {
        table.columns.map { column in
            let name = column.name.quotedDatabaseIdentifier
            return "OLD.\(name) IS NOT NEW.\(name)"
        }.joined(separator: " OR ")
    }

    private func record(row: String, deleted: Bool, fields: String) -> String {
        """
        \(Self.tick);
        INSERT INTO _sync_outbox (change_id, tbl, row_id, at, deleted, fields)
            SELECT \(Self.changeID), \(tableLiteral), CAST(\(row).\(key) AS TEXT), \(Self.stamp), \(deleted ? 1 : 0), \(fields)
            FROM _sync_clock;
        """
    }

    private func trigger(_ suffix: String) -> String {
        "_sync_\(table.name)_\(suffix)".quotedDatabaseIdentifier
    }

    var statements: [String] {
        [
            """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(name) WHEN \(Self.notApplying) BEGIN
            \(record(row: "NEW", deleted: false, fields: allFields(of: "NEW")))
            END
            """,
            """
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(name)
            WHEN \(Self.notApplying) AND (\(table.columns.isEmpty ? "0" : anyColumnChanged)) BEGIN
            \(record(row: "NEW", deleted: false, fields: changedFields))
            END
            """,
            """
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(name) WHEN \(Self.notApplying) BEGIN
            \(record(row: "OLD", deleted: true, fields: "'{}'"))
            END
            """,
            """
            CREATE TRIGGER \(trigger("keep_id")) BEFORE UPDATE OF \(key) ON \(name)
            WHEN OLD.\(key) IS NOT NEW.\(key) BEGIN
            SELECT RAISE(ABORT, 'A synced row keeps its id: delete it and insert a new one.');
            END
            """,
        ]
    }

    /// Records every row already in the table as an insert, all at one tick.
    var adoptRows: String {
        """
        \(Self.tick);
        INSERT INTO _sync_outbox (change_id, tbl, row_id, at, deleted, fields)
            SELECT \(Self.changeID), \(tableLiteral), CAST(t.\(key) AS TEXT), \(Self.stamp), 0, \(allFields(of: "t"))
            FROM \(name) AS t, _sync_clock;
        """
    }
}

extension String {
    /// The text as an SQL string literal: quotes doubled, in quotes.
    fileprivate var sqlStringLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}
