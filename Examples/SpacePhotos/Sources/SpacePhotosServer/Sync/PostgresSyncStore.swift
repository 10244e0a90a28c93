import BaselineSync
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// A ``SyncStore`` in PostgreSQL (postgres-nio), which several servers can
/// share: what `spacephotos serve --sync-database postgres://…` uses.
///
/// Its tables and statements are ``SQLiteSyncStore``'s, in one schema. A push
/// is one transaction that first locks the member's counter row
/// (`SELECT … FOR UPDATE`), so one member's pushes through any number of
/// servers run one after the other and take gap-free `seq`s. A push that
/// changes rows sends `pg_notify` with the member's new cursor; every store
/// on the database listens, so each server's `GET /sync/live` sockets wake
/// whichever server took the push (``cursorChanges()``).
///
/// Open it with ``open(url:schema:logger:)``, which connects once to make the
/// tables, then call ``run(watching:)`` while it is used: its connections live there,
/// and end when that task is cancelled or shut down gracefully.
///
/// A call made from a cancelled task, or cancelled while it waits for a
/// connection, throws `CancellationError`. A push that PostgreSQL aborts for
/// a deadlock or a serialization failure is tried again, three times in all.
public final class PostgresSyncStore: SyncStore {
    /// The schema, validated: tables and the channel are named after it.
    public let schema: String
    private let client: PostgresClient
    private let logger: Logger
    private let channel: String
    private let changes = SyncCursorBroadcast()
    private let listener = NIOLockedValueBox(ListenerState())
    private let hooks: ListenerHooks
    /// The epoch of the schema's data (see ``SyncStore/epoch``), drawn by
    /// the first server that made its tables and read by every other.
    public let epoch: Int64
    private let retention: SyncAppliedRetention

    private init(
        schema: String,
        client: PostgresClient,
        logger: Logger,
        hooks: ListenerHooks,
        epoch: Int64,
        retention: SyncAppliedRetention
    ) {
        self.schema = schema
        self.client = client
        self.logger = logger
        self.hooks = hooks
        self.epoch = epoch
        self.retention = retention
        channel = "\(schema)_sync_cursor"
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`,
    /// `?sslmode=disable|prefer|require`, `prefer` by default), makes the
    /// schema and tables if missing, and returns the store, not yet running.
    ///
    /// Servers starting at once do not race to make the tables: each makes
    /// them holding the same advisory lock.
    ///
    /// - Throws: ``PostgresSyncStoreError`` when the URL or schema is not
    ///   valid, or the database cannot be reached within five seconds.
    public static func open(url: URL, schema: String = "public", logger: Logger) async throws -> PostgresSyncStore {
        try await open(url: url, schema: schema, logger: logger, hooks: ListenerHooks())
    }

    /// ``open(url:schema:logger:)``, with hooks into the listener and a
    /// retention of change ids for tests.
    static func open(
        url: URL,
        schema: String = "public",
        logger: Logger,
        hooks: ListenerHooks,
        retention: SyncAppliedRetention = .standard
    ) async throws -> PostgresSyncStore {
        let target = try Target(url: url)
        guard Self.isValidSchema(schema) else { throw PostgresSyncStoreError.invalidSchema(schema) }
        // In a task of its own, which the caller's cancellation does not
        // reach: postgres-nio's connect, cancelled as it connects, has been
        // seen never to return. Uncancelled, the set-up ends within the
        // connect timeout plus its statements' timeouts, and closes its
        // connection.
        let configuration = try target.connectionConfiguration()
        let epoch = try await Task {
            try await setUp(target: target, configuration: configuration, schema: schema, logger: logger)
        }.value
        // The caller may have given up meanwhile: no client for nobody.
        try Task.checkCancellation()
        let client = PostgresClient(configuration: try target.clientConfiguration(), backgroundLogger: logger)
        return PostgresSyncStore(
            schema: schema,
            client: client,
            logger: logger,
            hooks: hooks,
            epoch: epoch,
            retention: retention
        )
    }

    /// The configuration of one connection to the database at `url`, read
    /// as ``open(url:schema:logger:)`` reads it: for tools and tests that
    /// need a connection of their own (to drop a schema, say).
    ///
    /// - Throws: ``PostgresSyncStoreError/invalidURL(_:)``.
    public static func connectionConfiguration(for url: URL) throws -> PostgresConnection.Configuration {
        try Target(url: url).connectionConfiguration()
    }

    /// Connects once, makes the schema and tables, and disconnects;
    /// returns the data's epoch.
    private static func setUp(
        target: Target,
        configuration: PostgresConnection.Configuration,
        schema: String,
        logger: Logger
    ) async throws -> Int64 {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw PostgresSyncStoreError.unreachable(target.description, reason: Self.reason(error))
        }
        let epoch: Int64
        do {
            epoch = try await createTables(schema: schema, on: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw PostgresSyncStoreError.setupFailed(target.description, reason: Self.reason(error))
        }
        try? await connection.close()
        return epoch
    }

    /// Runs the store's connections and its listener until the task is
    /// cancelled or shut down gracefully (ServiceLifecycle); call it once.
    ///
    /// Queries wait for it to run, and throw
    /// ``PostgresSyncStoreError/stopped`` once it has returned.
    ///
    /// - Parameter watched: The members whose cursors ``cursorChanges()``
    ///   yields again, read from the database, each time the listener has
    ///   reconnected: notifications sent while it was away are lost. A
    ///   server passes the members with live sockets.
    public func run(watching watched: @escaping @Sendable () -> [String] = { [] }) async {
        // Whatever way this ends, nobody waits for a listener any more.
        defer { stopListening() }
        await withDiscardingTaskGroup { group in
            // A child, so that cancelling this task ends the client too.
            group.addTask { await self.client.run() }
            group.addTask { await self.listen(watching: watched) }
            // Returns on graceful shutdown or cancellation, whichever first.
            try? await gracefulShutdown()
            group.cancelAll()
        }
        changes.finish()
    }

    /// Returns once the store receives other servers' notifications, or its
    /// first attempt to listen failed (it tries again every second), or it
    /// has stopped, or the caller's task is cancelled: a server started with
    /// it wakes its sockets for every push after that, as a rule.
    public func listening() async {
        let id = listener.withLockedValue { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = listener.withLockedValue { state in
                    if state.isListening || state.isStopped || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() } else { hooks.waiting() }
            }
        } onCancel: {
            let waiter = listener.withLockedValue { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    // Cancelled before waiting: the wait must not start.
                    state.cancelled.insert(id)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Applies `changes` for `member`, all or none (see ``SyncStore/push(_:member:)``).
    public func push(_ changes: [SyncChange], member: String) async throws -> SyncPushResult {
        let tables = Tables(schema: schema)
        let channel = channel
        let (result, changed) = try await transaction { connection in
            let start = try await Self.takeCounter(of: member, tables: tables, on: connection, logger: self.logger)
            var counter = start
            var foreign: [String] = []
            for change in changes {
                guard
                    try await Self.markApplied(
                        change.id,
                        member: member,
                        seq: counter,
                        tables: tables,
                        on: connection,
                        logger: self.logger
                    )
                else { continue }
                let stored = try await connection.query(
                    "SELECT member, state FROM \(unescaped: tables.row) WHERE tbl = \(change.table) AND row_id = \(change.row)",
                    logger: self.logger
                )
                .decode((String, String).self)
                .first { _ in true }
                var state = RowState()
                if let stored {
                    guard stored.0 == member else {
                        foreign.append(change.id)
                        continue
                    }
                    state = try RowState(storedJSON: stored.1)
                }
                let merged = state.merging(change.state)
                // A change already known moves nothing: pulls need not see the row again.
                guard stored == nil || merged != state else { continue }
                guard counter < SyncCursor.maximumSeq else { throw SyncStoreError.counterExhausted }
                // Another member may insert this new row at the same moment:
                // the update happens only if the row is still this member's.
                let encoded = try merged.storedJSON()
                let next = counter + 1
                let written = try await connection.query(
                    """
                    INSERT INTO \(unescaped: tables.row) (tbl, row_id, member, state, seq)
                    VALUES (\(change.table), \(change.row), \(member), \(encoded), \(next))
                    ON CONFLICT (tbl, row_id) DO UPDATE SET state = excluded.state, seq = excluded.seq
                    WHERE \(unescaped: tables.row).member = excluded.member
                    RETURNING 1
                    """,
                    logger: self.logger
                )
                .decode(Int32.self)
                .first { _ in true }
                guard written != nil else {
                    foreign.append(change.id)
                    continue
                }
                counter = next
            }
            // Thrown inside the transaction: it rolls back, marks included.
            if !foreign.isEmpty { throw SyncStoreError.notYours(foreign) }
            if counter != start {
                try await connection.query(
                    "UPDATE \(unescaped: tables.member) SET seq = \(counter) WHERE member = \(member)",
                    logger: self.logger
                )
                // Delivered at commit, to every listening store, this one included.
                let payload = Self.payload(member: member, cursor: counter)
                try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: self.logger)
            }
            if let below = self.retention.pruneBelow(start: start, counter: counter) {
                try await connection.query(
                    "DELETE FROM \(unescaped: tables.applied) WHERE member = \(member) AND seq < \(below)",
                    logger: self.logger
                )
            }
            return (SyncPushResult(applied: changes.map(\.id), cursor: counter), counter != start)
        }
        // This server's sockets need not wait for the notification's round trip.
        if changed { self.changes.publish(SyncCursorChange(member: member, cursor: result.cursor)) }
        return result
    }

    /// `member`'s rows after `cursor` (see ``SyncStore/pull(member:after:limit:)``).
    public func pull(member: String, after cursor: Int64, limit: Int) async throws -> SyncPage {
        let limit = max(limit, 1)
        let tables = Tables(schema: schema)
        // Read in one snapshot, so the rows are those of the counter read.
        return try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
            let latest = try await Self.counter(of: member, tables: tables, on: connection, logger: self.logger)
            guard cursor <= latest else { throw SyncStoreError.cursorAhead(cursor: cursor, latest: latest) }
            // One row more than asked for says whether more follow.
            let fetch = Int64(limit == .max ? limit : limit + 1)
            let rows = try await connection.query(
                """
                SELECT tbl, row_id, state, seq FROM \(unescaped: tables.row)
                WHERE member = \(member) AND seq > \(cursor) ORDER BY seq LIMIT \(fetch)
                """,
                logger: self.logger
            )
            var page: [SyncRow] = []
            var last = cursor
            var count = 0
            for try await (table, row, state, seq) in rows.decode((String, String, String, Int64).self) {
                count += 1
                guard count <= limit else { continue }
                page.append(SyncRow(table: table, row: row, state: try RowState(storedJSON: state)))
                last = seq
            }
            return SyncPage(rows: page, cursor: last, more: count > limit)
        }
    }

    /// `member`'s counter, 0 before any change.
    public func cursor(member: String) async throws -> Int64 {
        let tables = Tables(schema: schema)
        try Task.checkCancellation()
        try checkStopped()
        do {
            return try await client.withConnection { connection in
                try await Self.counter(of: member, tables: tables, on: connection, logger: self.logger)
            }
        } catch {
            try checkStopped()
            if Self.isCancellation(error) { throw CancellationError() }
            throw error
        }
    }

    /// Every server's pushes on this database that change rows, once
    /// ``run(watching:)`` listens (see ``SyncStore/cursorChanges()``).
    public func cursorChanges() -> AsyncStream<SyncCursorChange> {
        changes.stream()
    }

    // MARK: - Listening

    private struct ListenerState {
        var isListening = false
        var isStopped = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<UInt64> = []
        var nextWaiter: UInt64 = 0
    }

    /// Points in the listener's life where tests step in.
    struct ListenerHooks: Sendable {
        /// When ``listening()`` starts to wait.
        var waiting: @Sendable () -> Void = {}
        /// Before each attempt to listen, numbered from 0.
        var beforeListening: @Sendable (_ attempt: Int) async -> Void = { _ in }
        /// Once an attempt listens (and, after a reconnection, has published
        /// the watched cursors), with the listening connection.
        var listening: @Sendable (_ attempt: Int, PostgresConnection) async throws -> Void = { _, _ in }
    }

    /// Listens on the channel, again after a lost connection, until cancelled.
    private func listen(watching watched: @escaping @Sendable () -> [String]) async {
        var attempt = 0
        while !Task.isCancelled {
            await hooks.beforeListening(attempt)
            let reconnected = attempt > 0
            let current = attempt
            attempt += 1
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        // Listening now, so every later push is notified;
                        // those made while the listener was away are not:
                        // their members' cursors are read instead.
                        if reconnected { try await publishCursors(of: watched(), on: connection) }
                        markListening()
                        try await hooks.listening(current, connection)
                        for try await notification in notifications {
                            guard let change = Self.change(from: notification.payload) else { continue }
                            changes.publish(change)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                // A server waiting for the first attempt starts anyway.
                markListening()
                logger.warning("The sync notifications stopped; listening again", metadata: ["error": "\(error)"])
            }
            // Not in a tight loop while the database is away.
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Publishes the cursors of `members` as they are in the database.
    private func publishCursors(of members: [String], on connection: PostgresConnection) async throws {
        guard !members.isEmpty else { return }
        let tables = Tables(schema: schema)
        let rows = try await connection.query(
            "SELECT member, seq FROM \(unescaped: tables.member) WHERE member = ANY(\(members))",
            logger: logger
        )
        for try await (member, cursor) in rows.decode((String, Int64).self) {
            changes.publish(SyncCursorChange(member: member, cursor: cursor))
        }
    }

    private func markListening() {
        let waiters = listener.withLockedValue { state in
            state.isListening = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func stopListening() {
        let waiters = listener.withLockedValue { state in
            state.isStopped = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    static func payload(member: String, cursor: Int64) -> String { "\(cursor):\(member)" }

    static func change(from payload: String) -> SyncCursorChange? {
        guard let colon = payload.firstIndex(of: ":"), let cursor = Int64(payload[..<colon]) else { return nil }
        return SyncCursorChange(member: String(payload[payload.index(after: colon)...]), cursor: cursor)
    }

    // MARK: - SQL

    /// The tables' qualified names.
    private struct Tables {
        let row: String
        let member: String
        let applied: String
        let index: String
        let appliedIndex: String
        let epoch: String

        init(schema: String) {
            row = "\"\(schema)\".sync_row"
            member = "\"\(schema)\".sync_member"
            applied = "\"\(schema)\".sync_applied"
            index = "\"\(schema)\".sync_row_member_seq"
            appliedIndex = "\"\(schema)\".sync_applied_member_seq"
            epoch = "\"\(schema)\".sync_epoch"
        }
    }

    /// Lowercase letters, digits and underscores, as PostgreSQL folds
    /// unquoted names; short enough for the channel's name too.
    static func isValidSchema(_ schema: String) -> Bool {
        guard let first = schema.unicodeScalars.first, !("0"..."9").contains(first), schema.utf8.count <= 40 else {
            return false
        }
        return schema.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// How long the set-up waits for a lock on the tables (a migration
    /// holding them), for any one statement, and for other servers' set-ups
    /// to finish: a server fails to start, saying why, rather than wait for
    /// ever.
    static let setupLockTimeout = "5s"
    static let setupStatementTimeout = "15s"
    static let setupWaitTimeout = "60s"

    /// Makes the tables if missing; returns the data's epoch.
    private static func createTables(
        schema: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64 {
        let tables = Tables(schema: schema)
        // Every server start after the first finds the tables: it takes no
        // lock, so it cannot queue behind one held elsewhere.
        if try await tablesExist(tables, on: connection, logger: logger),
            let epoch = try await Self.epoch(tables, on: connection, logger: logger)
        {
            return epoch
        }
        return try await unwrappingTransactionErrors {
            try await connection.withTransaction(logger: logger) { connection in
                // Held until commit: two servers starting at once make the
                // tables one after the other. Per schema, so that one stuck
                // set-up holds up no other schema's. Waiting for it is
                // waiting for other servers' set-ups, each a dozen round
                // trips: servers starting together on a loaded machine may
                // queue here for many seconds, so the wait has a limit of its
                // own. The rows are read so that a failure surfaces here, not
                // at the next statement.
                try await connection.query(
                    "SET LOCAL statement_timeout = '\(unescaped: setupWaitTimeout)'",
                    logger: logger
                )
                for try await _ in try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(Self.setupLock), hashtext(\(schema)))",
                    logger: logger
                ) {}
                try await connection.query(
                    "SET LOCAL statement_timeout = '\(unescaped: setupStatementTimeout)'",
                    logger: logger
                )
                try await connection.query(
                    "SET LOCAL lock_timeout = '\(unescaped: setupLockTimeout)'",
                    logger: logger
                )
                try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: "\"\(schema)\"")", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS \(unescaped: tables.row) (
                        tbl TEXT NOT NULL,
                        row_id TEXT NOT NULL,
                        member TEXT NOT NULL,
                        state TEXT NOT NULL,
                        seq BIGINT NOT NULL,
                        PRIMARY KEY (tbl, row_id)
                    )
                    """,
                    logger: logger
                )
                try await connection.query(
                    "CREATE INDEX IF NOT EXISTS sync_row_member_seq ON \(unescaped: tables.row) (member, seq)",
                    logger: logger
                )
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS \(unescaped: tables.member) (
                        member TEXT NOT NULL PRIMARY KEY,
                        seq BIGINT NOT NULL
                    )
                    """,
                    logger: logger
                )
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS \(unescaped: tables.applied) (
                        member TEXT NOT NULL,
                        change_id TEXT NOT NULL,
                        PRIMARY KEY (member, change_id)
                    )
                    """,
                    logger: logger
                )
                // Added after the first tables (see SyncAppliedRetention): ids
                // from before it count as the oldest.
                try await connection.query(
                    "ALTER TABLE \(unescaped: tables.applied) ADD COLUMN IF NOT EXISTS seq BIGINT NOT NULL DEFAULT 0",
                    logger: logger
                )
                try await connection.query(
                    "CREATE INDEX IF NOT EXISTS sync_applied_member_seq ON \(unescaped: tables.applied) (member, seq)",
                    logger: logger
                )
                // One row; drawn by the first server, under the lock above.
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS \(unescaped: tables.epoch) (epoch BIGINT NOT NULL)",
                    logger: logger
                )
                let drawn = Int64.random(in: SyncCursor.epochs)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: tables.epoch) (epoch)
                    SELECT \(drawn) WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: tables.epoch))
                    """,
                    logger: logger
                )
                return try await Self.epoch(tables, on: connection, logger: logger) ?? drawn
            }
        }
    }

    /// Whether the tables and the index are all there already.
    private static func tablesExist(
        _ tables: Tables,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        let found = try await connection.query(
            """
            SELECT to_regclass(\(tables.row)) IS NOT NULL AND to_regclass(\(tables.member)) IS NOT NULL
                AND to_regclass(\(tables.applied)) IS NOT NULL AND to_regclass(\(tables.index)) IS NOT NULL
                AND to_regclass(\(tables.epoch)) IS NOT NULL AND to_regclass(\(tables.appliedIndex)) IS NOT NULL
            """,
            logger: logger
        )
        .decode(Bool.self)
        .first { _ in true }
        return found == true
    }

    /// The data's epoch, nil if it has none yet.
    private static func epoch(
        _ tables: Tables,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> Int64?
    {
        try await connection.query("SELECT epoch FROM \(unescaped: tables.epoch)", logger: logger)
            .decode(Int64.self)
            .first { _ in true }
    }

    /// The advisory lock the table set-up holds ("SPSY"), with the schema's hash.
    private static let setupLock: Int32 = 0x5350_5359

    /// Runs `body` in a transaction, rethrowing its own errors as they are
    /// and a cancelled query as `CancellationError`; a transaction that
    /// PostgreSQL aborted for a deadlock or a serialization failure runs
    /// again, up to ``transactionAttempts`` in all.
    private func transaction<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        // A pooled connection may be free, and postgres-nio would use it.
        try Task.checkCancellation()
        try checkStopped()
        var attempt = 1
        while true {
            do {
                return try await Self.unwrappingTransactionErrors {
                    try await client.withTransaction(logger: logger) { connection in try await body(connection) }
                }
            } catch {
                try checkStopped()
                if Self.isCancellation(error) { throw CancellationError() }
                // Rolled back whole: running it again is safe, and the other
                // transaction, let through, has usually finished by then.
                guard attempt < Self.transactionAttempts, Self.isTransient(error) else { throw error }
                attempt += 1
                logger.debug("A sync transaction is retried", metadata: ["error": "\(Self.reason(error))"])
            }
        }
    }

    /// How many times a transaction runs before a deadlock or serialization
    /// failure reaches the caller.
    static let transactionAttempts = 3

    /// Throws ``PostgresSyncStoreError/stopped`` once ``run(watching:)`` has returned:
    /// postgres-nio's own error then is a type of an internal module.
    private func checkStopped() throws {
        if listener.withLockedValue({ $0.isStopped }) { throw PostgresSyncStoreError.stopped }
    }

    /// Whether `error` is the caller's cancellation: postgres-nio reports a
    /// query cancelled with its task as `queryCancelled`.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError || Task.isCancelled { return true }
        return psqlErrors(in: error).contains { $0.code == .queryCancelled }
    }

    /// Whether PostgreSQL aborted the transaction for a deadlock (40P01) or a
    /// serialization failure (40001), which running it again may not meet.
    private static func isTransient(_ error: any Error) -> Bool {
        psqlErrors(in: error).contains { ["40P01", "40001"].contains($0.serverInfo?[.sqlState]) }
    }

    /// `error` itself, or the errors of a transaction's steps.
    private static func psqlErrors(in error: any Error) -> [PSQLError] {
        if let error = error as? PSQLError { return [error] }
        guard let error = error as? PostgresTransactionError else { return [] }
        return [error.beginError, error.closureError, error.commitError].compactMap { $0 as? PSQLError }
    }

    private static func unwrappingTransactionErrors<Result>(
        _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            // The store's own errors (notYours…) are what callers catch.
            if let closureError = error.closureError { throw closureError }
            throw error
        }
    }

    /// The member's counter, its row made if missing and locked until the
    /// transaction ends: the member's other pushes wait here.
    private static func takeCounter(
        of member: String,
        tables: Tables,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64 {
        try await connection.query(
            "INSERT INTO \(unescaped: tables.member) (member, seq) VALUES (\(member), 0) ON CONFLICT (member) DO NOTHING",
            logger: logger
        )
        let counter = try await connection.query(
            "SELECT seq FROM \(unescaped: tables.member) WHERE member = \(member) FOR UPDATE",
            logger: logger
        )
        .decode(Int64.self)
        .first { _ in true }
        return counter ?? 0
    }

    private static func counter(
        of member: String,
        tables: Tables,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64 {
        try await connection.query(
            "SELECT seq FROM \(unescaped: tables.member) WHERE member = \(member)",
            logger: logger
        )
        .decode(Int64.self)
        .first { _ in true } ?? 0
    }

    /// Records that `member` pushed the change `id`; false when it already had.
    private static func markApplied(
        _ id: String,
        member: String,
        seq: Int64,
        tables: Tables,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        let inserted = try await connection.query(
            """
            INSERT INTO \(unescaped: tables.applied) (member, change_id, seq) VALUES (\(member), \(id), \(seq))
            ON CONFLICT (member, change_id) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        .decode(Int32.self)
        .first { _ in true }
        return inserted != nil
    }

    /// What went wrong, for an operator: postgres-nio's errors hide their
    /// details from `description` in case they reach end users.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    // MARK: - Connection settings

    /// Where to connect, from a `postgres://` URL.
    struct Target: CustomStringConvertible {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var sslMode: String

        init(url: URL) throws {
            guard
                let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                ["postgres", "postgresql"].contains(components.scheme?.lowercased()),
                let host = components.host, !host.isEmpty
            else { throw PostgresSyncStoreError.invalidURL(Self.redacted(url)) }
            self.host = host
            port = components.port ?? 5432
            username = components.user ?? "postgres"
            password = components.password
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            database = path.isEmpty ? nil : path
            sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw PostgresSyncStoreError.invalidURL(Self.redacted(url))
            }
        }

        /// The URL without its password, for messages.
        var description: String { "postgres://\(username)@\(host):\(port)/\(database ?? "")" }

        static func redacted(_ url: URL) -> String {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(not a URL)" }
            if components.password != nil { components.password = "…" }
            return components.string ?? "(not a URL)"
        }

        var tls: PostgresConnection.Configuration.TLS {
            get throws {
                switch sslMode {
                case "disable": .disable
                case "require": try .require(.init(configuration: .makeClientConfiguration()))
                default: try .prefer(.init(configuration: .makeClientConfiguration()))
                }
            }
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            var configuration = PostgresConnection.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: try tls
            )
            // An unreachable database fails the start in seconds, not the default ten.
            configuration.options.connectTimeout = .seconds(5)
            return configuration
        }

        func clientConfiguration() throws -> PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: try clientTLS
            )
            configuration.options.connectTimeout = .seconds(5)
            return configuration
        }

        private var clientTLS: PostgresClient.Configuration.TLS {
            get throws {
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            }
        }
    }
}

/// Why a ``PostgresSyncStore`` could not open, or no longer answers.
public enum PostgresSyncStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not `postgres://user:password@host:port/database` (password redacted).
    case invalidURL(String)
    /// The schema is not lowercase letters, digits and underscores (at most 40).
    case invalidSchema(String)
    /// No connection to the database (password redacted), and why.
    case unreachable(String, reason: String)
    /// Connected, but the tables could not be made, and why.
    case setupFailed(String, reason: String)
    /// The store was used after its ``PostgresSyncStore/run(watching:)`` returned.
    case stopped

    /// A sentence for the operator.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            "\(url) is not a PostgreSQL URL: use postgres://user:password@host:port/database."
        case .invalidSchema(let schema):
            "\"\(schema)\" is not a usable schema name: use lowercase letters, digits and underscores."
        case .unreachable(let target, let reason):
            "Cannot connect to PostgreSQL at \(target): \(reason)."
        case .setupFailed(let target, let reason):
            "Cannot create the sync tables in PostgreSQL at \(target): \(reason)."
        case .stopped:
            "The PostgreSQL sync store has stopped: its connections are closed."
        }
    }
}

extension PostgresSyncStoreError: LocalizedError {
    /// The same sentence as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
