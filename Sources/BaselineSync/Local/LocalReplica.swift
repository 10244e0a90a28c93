import Foundation
import GRDB

/// A change waiting in the outbox.
struct OutboxEntry: Sendable, Hashable {
    /// Its place in the outbox: the order the device made changes in.
    var seq: Int64
    var change: SyncChange
}

/// The local database's side of sync: reading and clearing the outbox,
/// applying pulled rows, the cursor. Every function runs inside a
/// transaction its caller opened, so each step commits whole or not at all.
enum LocalReplica {
    // MARK: The outbox

    /// The oldest changes not set aside as refused, at most `limit` and
    /// about `maximumBytes` of JSON (always at least one).
    static func pending(_ db: Database, limit: Int, maximumBytes: Int) throws -> [OutboxEntry] {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT seq, change_id, tbl, row_id, at, deleted, fields FROM _sync_outbox
                WHERE failure IS NULL ORDER BY seq LIMIT ?
                """,
            arguments: [limit]
        )
        var entries: [OutboxEntry] = []
        var bytes = 0
        while let row = try rows.next() {
            let fields: String = row[6]
            bytes += fields.utf8.count + 200
            if !entries.isEmpty, bytes > maximumBytes { break }
            entries.append(try entry(row))
        }
        return entries
    }

    /// How many changes wait, and how many of them were refused.
    static func outboxCounts(_ db: Database) throws -> (pending: Int, refused: Int) {
        let row = try Row.fetchOne(
            db,
            sql: "SELECT count(*), count(failure) FROM _sync_outbox"
        )
        let total: Int = row?[0] ?? 0
        let refused: Int = row?[1] ?? 0
        return (total - refused, refused)
    }

    /// The refused changes, oldest first, with why.
    static func refused(_ db: Database) throws -> [(OutboxEntry, SyncRefusal.Change)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT seq, change_id, tbl, row_id, at, deleted, fields, failure FROM _sync_outbox
                WHERE failure IS NOT NULL ORDER BY seq
                """
        ).map { row in
            let failure: String = row[7]
            let refusal =
                (try? JSONDecoder().decode(SyncRefusal.Change.self, from: Data(failure.utf8)))
                ?? SyncRefusal.Change(id: row[1], code: .malformed, message: failure)
            return (try entry(row), refusal)
        }
    }

    private static func entry(_ row: Row) throws -> OutboxEntry {
        let stampText: String = row[4]
        guard let stamp = HybridTimestamp(stampText) else {
            throw SyncError.corruptBookkeeping("A change's timestamp is not one: \(stampText)")
        }
        let deleted: Bool = row[5]
        let fieldsText: String = row[6]
        let fields: OutboxFields
        do {
            fields = try JSONDecoder().decode(OutboxFields.self, from: Data(fieldsText.utf8))
        } catch {
            throw SyncError.corruptBookkeeping("A change's fields do not read: \(error)")
        }
        return OutboxEntry(
            seq: row[0],
            change: SyncChange(
                id: row[1],
                table: row[2],
                row: row[3],
                timestamp: stamp,
                deleted: deleted,
                fields: fields.values
            )
        )
    }

    /// Takes pushed changes out of the outbox, into the rows' known state.
    static func acknowledge(_ db: Database, _ ids: some Sequence<String>) throws {
        for id in ids {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT seq, change_id, tbl, row_id, at, deleted, fields FROM _sync_outbox WHERE change_id = ?",
                    arguments: [id]
                )
            else { continue }
            let change = try entry(row).change
            try store(
                db,
                table: change.table,
                row: change.row,
                state: known(db, change.table, change.row).merging(change.state)
            )
            try db.execute(sql: "DELETE FROM _sync_outbox WHERE change_id = ?", arguments: [id])
        }
    }

    /// Sets refused changes aside: they stay in the outbox, for the app to
    /// show, and are not pushed again until ``retryRefused(_:)``.
    static func setAside(_ db: Database, _ refusals: [SyncRefusal.Change]) throws {
        let encoder = JSONEncoder()
        for refusal in refusals {
            let text = String(decoding: try encoder.encode(refusal), as: UTF8.self)
            try db.execute(
                sql: "UPDATE _sync_outbox SET failure = ? WHERE change_id = ?",
                arguments: [text, refusal.id]
            )
        }
    }

    /// Puts refused changes back in line.
    static func retryRefused(_ db: Database) throws {
        try db.execute(sql: "UPDATE _sync_outbox SET failure = NULL WHERE failure IS NOT NULL")
    }

    /// Drops refused changes. The rows keep their local values; the server
    /// never learns them.
    static func discardRefused(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM _sync_outbox WHERE failure IS NOT NULL")
    }

    // MARK: Rows

    /// What the server has confirmed of a row (pushed or pulled).
    static func known(
        _ db: Database,
        _ table: String,
        _ row: String,
        decoder: JSONDecoder = JSONDecoder()
    ) throws -> RowState {
        // Cached statements: a page applies hundreds of rows, and preparing
        // each statement again cost more than running it.
        let select = try db.cachedStatement(sql: "SELECT state FROM _sync_row WHERE tbl = ? AND row_id = ?")
        guard let text = try String.fetchOne(select, arguments: [table, row]) else { return RowState() }
        do {
            return try decoder.decode(RowState.self, from: Data(text.utf8))
        } catch {
            throw SyncError.corruptBookkeeping("A row's state does not read: \(error)")
        }
    }

    private static func store(
        _ db: Database,
        table: String,
        row: String,
        state: RowState,
        encoder: JSONEncoder = JSONEncoder()
    ) throws {
        let text = String(decoding: try encoder.encode(state), as: UTF8.self)
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO _sync_row (tbl, row_id, state) VALUES (?, ?, ?)
                ON CONFLICT (tbl, row_id) DO UPDATE SET state = excluded.state
                """
        )
        try upsert.execute(arguments: [table, row, text])
    }

    /// What this device holds of a row: `confirmed` (what the server
    /// confirmed), with the changes still in the outbox on top.
    static func local(_ db: Database, _ table: String, _ row: String, over confirmed: RowState) throws -> RowState {
        var state = confirmed
        let select = try db.cachedStatement(
            sql: """
                SELECT seq, change_id, tbl, row_id, at, deleted, fields FROM _sync_outbox
                WHERE tbl = ? AND row_id = ? ORDER BY seq
                """
        )
        let entries = try Row.fetchAll(select, arguments: [table, row])
        for entry in entries {
            state = state.merging(try self.entry(entry).change.state)
        }
        return state
    }

    /// Applies a pulled page and moves the cursor past it, in the caller's
    /// transaction: a crash re-pulls the page, and applying it again
    /// changes nothing (merging is idempotent). Rows of tables this device
    /// does not sync are skipped.
    ///
    /// - Returns: How many rows changed locally.
    @discardableResult
    static func apply(_ db: Database, _ page: SyncPage, schema: SyncSchema) throws -> Int {
        try db.execute(sql: "INSERT OR REPLACE INTO _sync_state (key, value) VALUES ('applying', 1)")
        var changed = 0
        var latest: HybridTimestamp?
        // A device with nothing to send (a first sync, most pulls) has no
        // local changes to lay over the pulled rows: skip asking per row.
        let hasOutbox = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _sync_outbox)") ?? true
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        for row in page.rows {
            guard let table = schema.table(named: row.table) else { continue }
            let confirmed = try known(db, row.table, row.row, decoder: decoder)
            let before = hasOutbox ? try local(db, row.table, row.row, over: confirmed) : confirmed
            let after = before.merging(row.state)
            try store(db, table: row.table, row: row.row, state: confirmed.merging(row.state), encoder: encoder)
            if let stamp = row.state.latest { latest = max(latest ?? stamp, stamp) }
            guard after != before else { continue }
            if try materialize(db, table: table, row: row.row, state: after) { changed += 1 }
        }
        if let latest { try observe(db, latest) }
        try db.execute(sql: "DELETE FROM _sync_state WHERE key = 'applying'")
        try setCursor(db, page.cursor)
        return changed
    }

    /// Writes a row's merged state into the app's table. A row that
    /// exists but lacks a value its table requires (its insert never
    /// reached the server) is left out rather than failing the page.
    private static func materialize(_ db: Database, table: SyncedTable, row: String, state: RowState) throws -> Bool {
        let name = table.name.quotedDatabaseIdentifier
        let key = table.idColumn.quotedDatabaseIdentifier
        guard state.exists else {
            try db.cachedStatement(sql: "DELETE FROM \(name) WHERE \(key) = ?").execute(arguments: [row])
            return db.changesCount > 0
        }
        let present = table.columns.filter { state.fields[$0.name] != nil }
        let columns = [key] + present.map(\.name.quotedDatabaseIdentifier)
        var arguments: StatementArguments = [row]
        for column in present {
            arguments += [state.fields[column.name]?.value.databaseValue ?? .null]
        }
        let updates = present.map {
            "\($0.name.quotedDatabaseIdentifier) = excluded.\($0.name.quotedDatabaseIdentifier)"
        }
        let sql = """
            INSERT INTO \(name) (\(columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT (\(key)) DO \(updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))
            """
        do {
            // One statement per table and set of columns: cached, as rows
            // of a page mostly share both.
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
        return true
    }

    // MARK: Clock and cursor

    /// Moves the local clock past `remote`, so that every later local
    /// change is ordered after what was pulled.
    static func observe(_ db: Database, _ remote: HybridTimestamp) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT ms, counter, node FROM _sync_clock WHERE id = 0") else {
            throw SyncError.corruptBookkeeping("The sync clock is missing.")
        }
        let node = UInt64(bitPattern: row[2] as Int64)
        let last = HybridTimestamp(
            milliseconds: UInt64(clamping: row[0] as Int64),
            counter: UInt32(clamping: row[1] as Int64),
            node: node
        )
        let clock = HybridClock(node: node, start: last)
        clock.observe(remote)
        let next = clock.last
        try db.execute(
            sql: "UPDATE _sync_clock SET ms = ?, counter = ? WHERE id = 0",
            arguments: [Int64(clamping: next.milliseconds), Int64(next.counter)]
        )
    }

    // MARK: The account

    /// Binds the database to `account` the first time, and from then on
    /// checks that it is that account's: changes a member made here must
    /// never reach another member's data.
    ///
    /// - Throws: ``SyncError/otherAccount(bound:asked:)``.
    static func bind(_ db: Database, to account: String) throws {
        if let bound = try String.fetchOne(db, sql: "SELECT value FROM _sync_state WHERE key = 'account'") {
            guard bound == account else { throw SyncError.otherAccount(bound: bound, asked: account) }
        } else {
            try db.execute(sql: "INSERT INTO _sync_state (key, value) VALUES ('account', ?)", arguments: [account])
        }
    }

    /// The account the database is bound to, if any.
    static func account(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM _sync_state WHERE key = 'account'")
    }

    // MARK: The cursor

    /// Where the next pull starts.
    static func cursor(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM _sync_state WHERE key = 'cursor'") ?? 0
    }

    static func setCursor(_ db: Database, _ cursor: Int64) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO _sync_state (key, value) VALUES ('cursor', ?)", arguments: [cursor])
    }
}

/// The outbox's JSON for a change's fields: like ``SyncValue``'s, but reals
/// as text (17 digits, exact) and blobs as hex, which is what SQL can write.
private struct OutboxFields: Decodable {
    var values: [String: SyncValue] = [:]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private enum ValueKey: String, CodingKey {
        case integer, real, text, blob
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if try container.decodeNil(forKey: key) {
                values[key.stringValue] = .null
                continue
            }
            let value = try container.nestedContainer(keyedBy: ValueKey.self, forKey: key)
            if let integer = try value.decodeIfPresent(Int64.self, forKey: .integer) {
                values[key.stringValue] = .integer(integer)
            } else if let real = try value.decodeIfPresent(String.self, forKey: .real), let double = Double(real) {
                values[key.stringValue] = .real(double)
            } else if let text = try value.decodeIfPresent(String.self, forKey: .text) {
                values[key.stringValue] = .text(text)
            } else if let hex = try value.decodeIfPresent(String.self, forKey: .blob), let data = Data(hex: hex) {
                values[key.stringValue] = .blob(data)
            } else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "Unknown value")
            }
        }
    }
}

extension Data {
    /// Bytes from SQLite's `hex()`: pairs of upper-case hex digits.
    fileprivate init?(hex: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for digit in hex.utf8 {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { return nil }
        self.init(bytes)
    }
}

extension SyncValue {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(value): value.databaseValue
        case let .real(value): value.databaseValue
        case let .text(value): value.databaseValue
        case let .blob(value): value.databaseValue
        }
    }
}

/// What goes wrong in sync on this device.
public enum SyncError: Error, Sendable, Equatable {
    /// The sync bookkeeping (the `_sync_…` tables: outbox, rows' states,
    /// clock) holds something it never wrote: a database edited by hand,
    /// or damaged.
    case corruptBookkeeping(String)
    /// The database syncs for the account `bound`, and was asked to sync
    /// for `asked`: nothing was sent. Give each account a database of its
    /// own (a file per member), as its unsent changes are the other's.
    case otherAccount(bound: String, asked: String)
}

extension SyncError: CustomStringConvertible {
    /// One sentence for a log or a status line.
    public var description: String {
        switch self {
        case let .corruptBookkeeping(detail):
            "The sync bookkeeping is damaged: \(detail)"
        case let .otherAccount(bound, asked):
            "This database syncs for \(bound), not \(asked): nothing was sent"
        }
    }
}
