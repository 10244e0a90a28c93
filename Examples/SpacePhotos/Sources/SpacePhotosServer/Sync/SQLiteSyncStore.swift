import BaselineSync
import Foundation
import GRDB

/// A ``SyncStore`` in SQLite (GRDB): in memory, for a server that needs no
/// setup, or in a file, for one that keeps its members' rows across restarts.
///
/// Its statements are the ones a PostgreSQL store would run (upserts with
/// `ON CONFLICT`, `RETURNING`), one transaction per push. SQLite has one
/// writer at a time, so here pushes are serialised anyway; the member's
/// counter row is still taken first, as ``SyncStore`` asks.
///
/// Call ``close()`` when done with it (the server does, when it stops).
public final class SQLiteSyncStore: SyncStore {
    private let database: any DatabaseWriter
    private let changes = SyncCursorBroadcast()
    /// The epoch of the data (see ``SyncStore/epoch``): drawn with the
    /// tables, kept in the file; a store in memory draws a new one each time.
    public let epoch: Int64
    private let retention: SyncAppliedRetention

    /// An empty store in memory: its rows go when it does.
    public convenience init() throws {
        try self.init(retention: .standard)
    }

    /// An empty store in memory that remembers change ids as `retention` says.
    convenience init(retention: SyncAppliedRetention) throws {
        try self.init(database: try DatabaseQueue(configuration: Self.configuration()), retention: retention)
    }

    /// The store in the SQLite database at `file`, made if missing.
    public convenience init(file: URL) throws {
        try self.init(file: file, retention: .standard)
    }

    /// The store at `file`, remembering change ids as `retention` says.
    convenience init(file: URL, retention: SyncAppliedRetention) throws {
        // WAL: pulls read a snapshot while a push writes.
        try self.init(
            database: try DatabasePool(path: file.path, configuration: Self.configuration()),
            retention: retention
        )
    }

    private init(database: any DatabaseWriter, retention: SyncAppliedRetention) throws {
        try Self.migrator.migrate(database)
        self.database = database
        self.retention = retention
        epoch = try database.read { db in try Int64.fetchOne(db, sql: "SELECT epoch FROM sync_epoch") } ?? 0
    }

    /// Closes the database; the store cannot be used after.
    public func close() throws {
        changes.finish()
        try database.close()
    }

    /// This store's pushes that change rows (see ``SyncStore/cursorChanges()``).
    public func cursorChanges() -> AsyncStream<SyncCursorChange> {
        changes.stream()
    }

    /// Applies `changes` for `member`, all or none (see ``SyncStore/push(_:member:)``).
    public func push(_ changes: [SyncChange], member: String) async throws -> SyncPushResult {
        let (result, changed) = try await database.write { db in
            let start = try Self.takeCounter(of: member, db)
            var counter = start
            var foreign: [String] = []
            for change in changes {
                guard try Self.markApplied(change.id, member: member, seq: counter, db) else { continue }
                let stored = try Row.fetchOne(
                    db,
                    sql: "SELECT member, state FROM sync_row WHERE tbl = ? AND row_id = ?",
                    arguments: [change.table, change.row]
                )
                var state = RowState()
                if let stored {
                    guard stored[0] as String == member else {
                        foreign.append(change.id)
                        continue
                    }
                    state = try RowState(storedJSON: stored[1])
                }
                let merged = state.merging(change.state)
                // A change already known (an older write, or this one from
                // another device) moves nothing: pulls need not see the row again.
                guard stored == nil || merged != state else { continue }
                guard counter < SyncCursor.maximumSeq else { throw SyncStoreError.counterExhausted }
                // The member's own rows change only under the counter taken
                // above; a new row, though, another member may insert at the
                // same moment (with several PostgreSQL writers): the update
                // happens only if the row is still this member's.
                let written = try Int64.fetchOne(
                    db,
                    sql: """
                        INSERT INTO sync_row (tbl, row_id, member, state, seq) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (tbl, row_id) DO UPDATE SET state = excluded.state, seq = excluded.seq
                        WHERE sync_row.member = excluded.member
                        RETURNING 1
                        """,
                    arguments: [change.table, change.row, member, try merged.storedJSON(), counter + 1]
                )
                guard written != nil else {
                    foreign.append(change.id)
                    continue
                }
                counter += 1
            }
            // Thrown inside the transaction: it rolls back, marks included.
            if !foreign.isEmpty { throw SyncStoreError.notYours(foreign) }
            if counter != start {
                try db.execute(sql: "UPDATE sync_member SET seq = ? WHERE member = ?", arguments: [counter, member])
            }
            if let below = retention.pruneBelow(start: start, counter: counter) {
                try db.execute(
                    sql: "DELETE FROM sync_applied WHERE member = ? AND seq < ?",
                    arguments: [member, below]
                )
            }
            return (SyncPushResult(applied: changes.map(\.id), cursor: counter), counter != start)
        }
        if changed { self.changes.publish(SyncCursorChange(member: member, cursor: result.cursor)) }
        return result
    }

    /// `member`'s rows after `cursor` (see ``SyncStore/pull(member:after:limit:)``).
    public func pull(member: String, after cursor: Int64, limit: Int) async throws -> SyncPage {
        let limit = max(limit, 1)
        return try await database.read { db in
            let latest = try Self.counter(of: member, db)
            guard cursor <= latest else { throw SyncStoreError.cursorAhead(cursor: cursor, latest: latest) }
            // One row more than asked for says whether more follow.
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT tbl, row_id, state, seq FROM sync_row WHERE member = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [member, cursor, limit == .max ? limit : limit + 1]
            )
            var page: [SyncRow] = []
            var last = cursor
            for row in rows.prefix(limit) {
                page.append(SyncRow(table: row[0], row: row[1], state: try RowState(storedJSON: row[2])))
                last = row[3]
            }
            return SyncPage(rows: page, cursor: last, more: rows.count > limit)
        }
    }

    /// `member`'s counter, 0 before any change.
    public func cursor(member: String) async throws -> Int64 {
        try await database.read { db in try Self.counter(of: member, db) }
    }

    // MARK: - SQL

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "sync"
        return configuration
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("sync tables") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sync_row (
                        tbl TEXT NOT NULL,
                        row_id TEXT NOT NULL,
                        member TEXT NOT NULL,
                        state TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (tbl, row_id)
                    );
                    CREATE INDEX sync_row_member_seq ON sync_row (member, seq);
                    CREATE TABLE sync_member (
                        member TEXT NOT NULL PRIMARY KEY,
                        seq INTEGER NOT NULL
                    );
                    CREATE TABLE sync_applied (
                        member TEXT NOT NULL,
                        change_id TEXT NOT NULL,
                        PRIMARY KEY (member, change_id)
                    );
                    """
            )
        }
        // Added after the first tables: a file made before it gets its
        // epoch now, and devices holding its older cursors pull once again.
        migrator.registerMigration("sync epoch") { db in
            try db.execute(sql: "CREATE TABLE sync_epoch (epoch INTEGER NOT NULL)")
            try db.execute(
                sql: "INSERT INTO sync_epoch (epoch) VALUES (?)",
                arguments: [Int64.random(in: SyncCursor.epochs)]
            )
        }
        // Ids are kept for a member's latest changes only: each records the
        // member's counter when it came. Ids from before this migration count
        // as the oldest, and go at the first pruning.
        migrator.registerMigration("sync applied seq") { db in
            try db.execute(sql: "ALTER TABLE sync_applied ADD COLUMN seq INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "CREATE INDEX sync_applied_member_seq ON sync_applied (member, seq)")
        }
        return migrator
    }

    /// The member's counter, its row made if missing and taken for the
    /// transaction (in PostgreSQL the upsert locks it until commit).
    private static func takeCounter(of member: String, _ db: Database) throws -> Int64 {
        let counter = try Int64.fetchOne(
            db,
            sql: """
                INSERT INTO sync_member (member, seq) VALUES (?, 0)
                ON CONFLICT (member) DO UPDATE SET seq = sync_member.seq
                RETURNING seq
                """,
            arguments: [member]
        )
        return counter ?? 0
    }

    private static func counter(of member: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sync_member WHERE member = ?", arguments: [member]) ?? 0
    }

    /// Records that `member` pushed the change `id` when its counter was
    /// `seq`; false when it already had.
    private static func markApplied(_ id: String, member: String, seq: Int64, _ db: Database) throws -> Bool {
        let inserted = try Int64.fetchOne(
            db,
            sql: """
                INSERT INTO sync_applied (member, change_id, seq) VALUES (?, ?, ?)
                ON CONFLICT (member, change_id) DO NOTHING
                RETURNING 1
                """,
            arguments: [member, id, seq]
        )
        return inserted != nil
    }
}
