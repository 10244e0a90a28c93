import BaselineConcurrency
import Foundation
public import GRDB

/// An SQLite database (on GRDB) with an owner and a lifetime you can point at.
///
/// ```swift
/// // The app's composition root creates it, once, and hands it to features.
/// let database = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
///
/// try await database.write { db in
///     var todo = Todo(text: "Buy milk", date: .now)
///     try todo.insert(db)
/// }
/// let todos = try await database.read { db in try Todo.order(Column("date")).fetchAll(db) }
///
/// for try await todos in database.observe({ db in try Todo.fetchAll(db) }) {
///     render(todos)   // runs on the caller's actor, after every commit that changes the result
/// }
///
/// try await database.close()  // or let the last reference go
/// ```
///
/// ## Lifetime, answered
///
/// A database kept in a `static var shared` leaves nobody able to say when
/// it closes. Here:
///
/// - **Who owns it.** Whoever created it. There is no shared instance; pass
///   the value to the features that need it. Features hold it strongly only
///   as long as they live.
/// - **When it closes.** When ``close()`` is called, or when the last
///   reference goes away. After ``close()`` every call throws
///   ``SQLiteDatabaseError/closed``.
/// - **Where its work runs.** On GRDB's own serial writer queue and reader
///   queues — never on the main actor, never on the caller's actor. `read` and
///   `write` suspend the caller while the work runs there.
/// - **What happens to observations.** An ``observe(_:)-7tfx5`` sequence ends
///   (finishes without error) when the database closes or is released. Ending
///   a sequence's iteration (breaking out, or cancelling the consuming task)
///   stops its observation.
public final class SQLiteDatabase: Sendable {
    /// Where the data lives.
    public enum Location: Sendable, Equatable {
        /// A file, in WAL mode: readers run concurrently with the writer.
        case file(URL)
        /// In memory, gone when the database is released. For tests and previews.
        case inMemory
    }

    /// Where the data lives.
    public let location: Location
    let writer: any DatabaseWriter
    let observations: ObservationRegistry

    private init(location: Location, writer: any DatabaseWriter) {
        self.location = location
        self.writer = writer
        self.observations = ObservationRegistry()
    }

    deinit {
        observations.endAll()
    }

    // MARK: Opening

    /// Opens (creating if needed) the database file at `url` in WAL mode and
    /// brings its schema up to date with `migrator`.
    ///
    /// A file it creates is readable and writable by its owner only (mode
    /// 0600, and SQLite gives its `-wal` and `-shm` files the same mode), in
    /// folders it creates with mode 0700: an app's data is nobody else's on a
    /// shared machine. An existing file keeps its mode, so a database you
    /// mean to share can be created beforehand.
    ///
    /// - Throws: ``SQLiteDatabaseError/corrupt(path:)`` when the file is not a
    ///   database or is damaged (see ``SQLiteDatabase/moveAside(databaseAt:now:)``),
    ///   ``SQLiteDatabaseError/cannotOpen(path:reason:)`` for other failures.
    public static func open(
        at url: URL,
        migrator: DatabaseMigrator,
        configuration: Configuration = Configuration()
    ) async throws -> SQLiteDatabase {
        let path = url.path
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            if let reason = PrivateFile.createIfMissing(atPath: path) {
                throw SQLiteDatabaseError.cannotOpen(path: path, reason: reason)
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            // Reading the schema is what reveals a file that is not a database.
            _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try migrator.migrate(pool)
            return SQLiteDatabase(location: .file(url), writer: pool)
        } catch {
            throw SQLiteDatabaseError.wrap(error, path: path, opening: true)
        }
    }

    /// A new, empty database in memory, migrated with `migrator`.
    public static func inMemory(
        migrator: DatabaseMigrator,
        configuration: Configuration = Configuration()
    ) async throws -> SQLiteDatabase {
        do {
            let queue = try DatabaseQueue(configuration: configuration)
            try migrator.migrate(queue)
            return SQLiteDatabase(location: .inMemory, writer: queue)
        } catch {
            throw SQLiteDatabaseError.wrap(error, path: ":memory:", opening: true)
        }
    }

    // MARK: Reading and writing

    /// Runs `body` with read access, concurrently with other reads and with
    /// the writer (WAL), on a snapshot that sees only committed data.
    ///
    /// - Throws: ``SQLiteDatabaseError`` for SQLite's failures, or what `body`
    ///   throws, unchanged.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform { try await writer.read(body) }
    }

    /// Runs `body` in a write transaction: committed if it returns, rolled
    /// back if it throws (or the task is cancelled). Writes are serialized.
    ///
    /// - Throws: ``SQLiteDatabaseError`` for SQLite's failures, or what `body`
    ///   throws, unchanged.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await perform { try await writer.write(body) }
    }

    /// Runs an access if the database is open, reporting SQLite's errors in Baseline's terms.
    private func perform<T>(_ access: () async throws -> T) async throws -> T {
        if observations.isClosed { throw SQLiteDatabaseError.closed }
        do {
            return try await access()
        } catch {
            throw SQLiteDatabaseError.wrap(error, path: path)
        }
    }

    /// Closes the database: ends every observation, then closes the
    /// connections. Calling it twice is harmless.
    public func close() async throws {
        guard observations.endAll() else { return }
        do {
            try writer.close()
        } catch {
            throw SQLiteDatabaseError.wrap(error, path: path)
        }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { observations.isClosed }

    var path: String {
        switch location {
        case let .file(url): url.path
        case .inMemory: ":memory:"
        }
    }

    // MARK: Recovery

    /// Moves a damaged database file (and its WAL and shared-memory files)
    /// aside, so that the app can start afresh without destroying anything.
    ///
    /// - Returns: The new location of the main file.
    @discardableResult
    public static func moveAside(databaseAt url: URL, now: Date = Date()) throws -> URL {
        let stamp = Int(now.timeIntervalSince1970)
        let destination = url.deletingLastPathComponent()
            .appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)")
        let fileManager = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: url.path + suffix)
            guard fileManager.fileExists(atPath: source.path) else { continue }
            try fileManager.moveItem(at: source, to: URL(fileURLWithPath: destination.path + suffix))
        }
        return destination
    }
}
