public import BaselineConcurrency
public import Foundation
import GRDB

extension SharedKey where Value: Codable {
    /// A value stored as JSON in a row of `database`, named `name`.
    ///
    /// ```swift
    /// .sharing(\.count, action: \.count, .row("counter", in: database))
    /// ```
    ///
    /// The rows live in a table of their own, `baseline_shared_values`,
    /// made at the first save; a save is one transaction. A commit
    /// that changes the row arrives at every holder: from this process
    /// through the database's observation, from another process through a
    /// watch of the database's folder (its write-ahead log changes). A row
    /// that does not decode fails the load with ``SharedRowError/corrupt(reason:)``
    /// and stays until the next save replaces it: the database keeps what
    /// it was given.
    public static func row(
        _ name: String,
        in database: SQLiteDatabase,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder()
    ) -> SharedKey {
        // The database object is part of the id: one opened again (after a
        // close) is another hub, with its own reads and writes; connections
        // to one file still hear each other through the folder's watch.
        let connection = UInt(bitPattern: ObjectIdentifier(database).hashValue)
        let place: String
        let folder: URL?
        switch database.location {
        case let .file(url):
            place = url.standardizedFileURL.path
            folder = url.standardizedFileURL.deletingLastPathComponent()
        case .inMemory:
            place = "memory"
            folder = nil
        }
        return SharedKey(
            id: "row:\(place)@\(connection)#\(name)",
            load: {
                // A read: a write here would change the log, and the watch would load again.
                let data = try await database.read { db in try SharedRows.fetchIfPresent(name, db) }
                guard let data else { return nil }
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw SharedRowError.corrupt(reason: String(describing: error))
                }
            },
            save: { value in
                let data: Data
                do { data = try encoder.encode(value) } catch {
                    throw SharedRowError.encoding(String(describing: error))
                }
                try await database.write { db in
                    try SharedRows.create(db)
                    try db.execute(
                        sql:
                            "INSERT INTO \(SharedRows.table) (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                        arguments: [name, data]
                    )
                }
            },
            changes: {
                let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                // Both watches begin here, before the first load: a commit made
                // after it is loaded again, whichever process made it.
                // This process's commits: the row as observed (the table may not be there yet).
                let rows = database.observe { db in try SharedRows.fetchIfPresent(name, db) }
                // Other processes' commits: the log beside the database changes.
                let log = folder.map { DirectoryWatcher.changes(in: $0) }
                let local = Task {
                    do {
                        for try await _ in rows { continuation.yield() }
                    } catch {}
                }
                let outside = Task {
                    guard let log else { return }
                    for await _ in log { continuation.yield() }
                }
                continuation.onTermination = { _ in
                    local.cancel()
                    outside.cancel()
                }
                return stream
            }
        )
    }
}

/// Why a shared database row could not be loaded or saved (the database's
/// own errors arrive as ``SQLiteDatabaseError``).
public enum SharedRowError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The row's JSON did not decode.
    case corrupt(reason: String)
    /// The value could not be encoded.
    case encoding(String)

    /// The failure, for a screen or a log.
    public var description: String {
        switch self {
        case let .corrupt(reason): "The stored value did not decode (\(reason))."
        case let .encoding(reason): "The value could not be encoded: \(reason)."
        }
    }
}

/// The table of shared rows.
enum SharedRows {
    static let table = "baseline_shared_values"

    static func create(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
    }

    /// The row's value; `nil` when there is no row, or no table yet.
    static func fetchIfPresent(_ name: String, _ db: Database) throws -> Data? {
        guard try db.tableExists(table) else { return nil }
        return try Data.fetchOne(db, sql: "SELECT value FROM \(table) WHERE name = ?", arguments: [name])
    }
}
