import BaselineConcurrency
import BaselineHTTP
public import BaselinePersistence
import Foundation
import GRDB
public import Logging

/// Keeps a local SQLite database in sync with a server: pushes the outbox
/// that ``SyncSchema``'s triggers fill, pulls what other devices changed,
/// and says what it is doing in ``status``.
///
/// ```swift
/// let engine = SyncEngine(database: database, schema: schema, server: HTTPSyncServer(client: client))
/// let syncing = Task { try await engine.run(account: member.id) }   // while the member is logged in
/// for await status in engine.statuses { … }        // idle, syncing, offline, failed
/// syncing.cancel()
/// ```
///
/// The local database stays the source of truth for the screens: the app
/// writes it and reads it (live queries included) as before. Pulled rows
/// are written into the app's tables like any other write, so live queries
/// update when they land.
///
/// ## When it syncs
///
/// - After every local write that records changes (it watches the outbox).
/// - When the server's change channel says there is something new; without
///   a channel, by polling: every ``Configuration/pollInterval``, twice as
///   long after each poll that brought nothing, up to
///   ``Configuration/maximumPollInterval``.
/// - After a failure, with backoff from ``Configuration/initialRetryDelay``
///   to ``Configuration/maximumRetryDelay``; sooner when the channel comes
///   back or on ``syncNow()``.
///
/// ## What it never does
///
/// - Lose a change: a change leaves the outbox only in the transaction that
///   records the server's acknowledgement, and the server applies a change
///   id once, so a crash or a lost answer means a harmless second push.
/// - Retry a refused change forever: a change the server refuses (a 4xx
///   naming it) is set aside, counted in ``SyncStatus/refusedChanges`` and
///   listed by ``refusedChanges()``, while the rest goes on syncing.
public final class SyncEngine: Sendable {
    /// How often and how much the engine syncs.
    public struct Configuration: Sendable {
        /// The most changes in one push.
        public var pushLimit: Int = 500
        /// About the most bytes of changes in one push.
        public var pushByteLimit: Int = 512 * 1024
        /// The most rows a pull asks for.
        public var pullLimit: Int = 500
        /// The first wait between polls when there is no change channel.
        public var pollInterval: Duration = .seconds(1)
        /// The longest wait between polls.
        public var maximumPollInterval: Duration = .seconds(60)
        /// The first wait after a failure.
        public var initialRetryDelay: Duration = .seconds(1)
        /// The longest wait after failures.
        public var maximumRetryDelay: Duration = .seconds(60)

        /// The defaults: pushes of 500 changes or 512 KiB, pulls of 500
        /// rows, polls from 1 s to 60 s, retries from 1 s to 60 s.
        public init() {}
    }

    let database: SQLiteDatabase
    let schema: SyncSchema
    let server: any SyncServer
    let configuration: Configuration
    let clock: any Clock<Duration>
    let logger: Logger
    private let wakeup = Wakeup()
    private let state = LockedValue(State())

    private struct State {
        var status = SyncStatus()
        var subscribers: [UInt64: AsyncStream<SyncStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    /// An engine for `database`'s tables in `schema`, syncing with `server`.
    ///
    /// - Parameters:
    ///   - database: The local database, migrated with `schema`'s migrations.
    ///   - schema: The synced tables.
    ///   - server: Where changes go and come from.
    ///   - configuration: Batch sizes, poll and retry waits.
    ///   - clock: Measures poll and retry waits; tests pass a test clock.
    ///   - logger: Where failures are logged (at debug level: the status
    ///     says them to the app).
    public init(
        database: SQLiteDatabase,
        schema: SyncSchema,
        server: any SyncServer,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "BaselineSync")
    ) {
        self.database = database
        self.schema = schema
        self.server = server
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    deinit {
        for continuation in state.current.subscribers.values { continuation.finish() }
    }

    // MARK: Status

    /// What the engine is doing now.
    public var status: SyncStatus { state.current.status }

    /// The status now, then every change of it. Each iteration gets its
    /// own sequence; a slow reader gets the newest status.
    public var statuses: AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            continuation.yield(state.status)
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private func update(_ change: (inout SyncStatus) -> Void) {
        state.withLock { state in
            var status = state.status
            change(&status)
            guard status != state.status else { return }
            state.status = status
            for continuation in state.subscribers.values { continuation.yield(status) }
        }
    }

    // MARK: Controls

    /// Syncs now: ends a poll or retry wait early.
    public func syncNow() {
        wakeup.signal(.asked)
    }

    /// The changes the server refused, oldest first.
    public func refusedChanges() async throws -> [RefusedChange] {
        try await database.read { db in
            try LocalReplica.refused(db).map {
                RefusedChange(change: $0.0.change, code: $0.1.code, message: $0.1.message)
            }
        }
    }

    /// Puts refused changes back in line, for after the server changed its
    /// mind (a limit raised, a clock fixed).
    public func retryRefusedChanges() async throws {
        try await database.write { db in try LocalReplica.retryRefused(db) }
        wakeup.signal(.asked)
    }

    /// Drops refused changes. The rows keep their local values, which the
    /// server never gets; a later edit of them syncs as usual.
    public func discardRefusedChanges() async throws {
        try await database.write { db in try LocalReplica.discardRefused(db) }
    }

    // MARK: Running

    /// Syncs until the task is cancelled, then throws `CancellationError`.
    /// Failures to reach the server never end it: they show in ``status``
    /// and are retried. Only one `run()` at a time per engine.
    ///
    /// - Parameter account: Who the database syncs for, such as the member
    ///   id of the session: the first run binds the database to it, and a
    ///   run for another account sends nothing, sets the status to
    ///   ``SyncStatus/Activity/stopped(_:)`` and throws
    ///   ``SyncError/otherAccount(bound:asked:)``. Without it the database
    ///   is not checked: pass one whenever a device can log in as someone
    ///   else, since the outbox holds the last member's unsent changes.
    public func run(account: String? = nil) async throws {
        if let account { try await bind(to: account) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.watchOutbox() }
            group.addTask { await self.listen() }
            group.addTask { try await self.loop() }
            defer { group.cancelAll() }
            while try await group.next() != nil {}
        }
        try Task.checkCancellation()
    }

    /// Runs one full cycle now, push then pull, and throws what fails:
    /// for tests and for a "sync before quitting" button. `account` is
    /// checked as ``run(account:)`` checks it.
    public func syncOnce(account: String? = nil) async throws {
        if let account { try await bind(to: account) }
        try await cycle()
    }

    /// The account the database is bound to: the first account it synced
    /// for, or `nil` while it has synced for none.
    public func account() async throws -> String? {
        try await database.read { db in try LocalReplica.account(db) }
    }

    private func bind(to account: String) async throws {
        do {
            try await database.write { db in try LocalReplica.bind(db, to: account) }
        } catch let error as SyncError {
            update { $0.activity = .stopped("\(error)") }
            throw error
        }
    }

    /// Keeps the outbox counts in the status, and wakes the loop when a
    /// local write records changes.
    private func watchOutbox() async throws {
        struct Counts: Equatable, Sendable {
            var pending: Int
            var refused: Int
            var newest: Int64
        }
        let counts = database.observe { db -> Counts in
            let (pending, refused) = try LocalReplica.outboxCounts(db)
            let newest = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM _sync_outbox") ?? 0
            return Counts(pending: pending, refused: refused, newest: newest)
        }
        var newest: Int64 = 0
        for try await count in counts {
            update {
                $0.pendingChanges = count.pending
                $0.refusedChanges = count.refused
            }
            if count.newest > newest, count.pending > 0 { wakeup.signal(.local) }
            newest = count.newest
        }
    }

    /// Keeps the server's change channel open, reconnecting with backoff;
    /// every notification wakes the loop.
    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                guard let changes = try await server.changes() else { return }
                failures = 0
                update { $0.isLive = true }
                // Catch up with what happened while the channel was down.
                wakeup.signal(.remote)
                for try await _ in changes { wakeup.signal(.remote) }
            } catch is CancellationError {
                break
            } catch {
                logger.debug("Sync channel failed", metadata: ["error": "\(error)"])
            }
            update { $0.isLive = false }
            failures += 1
            do {
                try await clock.sleep(for: delay(after: failures))
            } catch {
                break
            }
        }
        update { $0.isLive = false }
    }

    private func loop() async throws {
        var failures = 0
        var pollDelay = configuration.pollInterval
        while true {
            try Task.checkCancellation()
            update { $0.activity = .syncing }
            do {
                let changed = try await cycle()
                failures = 0
                update {
                    $0.activity = .idle
                    $0.lastSynced = Date()
                }
                if status.isLive {
                    pollDelay = configuration.pollInterval
                    await wakeup.wait(for: [.local, .remote, .asked])
                } else {
                    pollDelay =
                        changed ? configuration.pollInterval : min(pollDelay * 2, configuration.maximumPollInterval)
                    await wakeup.wait(for: [.local, .remote, .asked], upTo: pollDelay, on: clock)
                }
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                failures += 1
                let retryIn = delay(after: failures)
                update { $0.activity = Self.activity(for: error, retryIn: retryIn) }
                logger.debug("Sync failed", metadata: ["error": "\(error)"])
                // Local writes do not cut a retry wait short: an offline
                // device that writes often would otherwise retry at once.
                await wakeup.wait(for: [.remote, .asked], upTo: retryIn, on: clock)
            }
        }
    }

    private func delay(after failures: Int) -> Duration {
        var delay = configuration.initialRetryDelay
        for _ in 1..<max(failures, 1) where delay < configuration.maximumRetryDelay { delay *= 2 }
        return min(delay, configuration.maximumRetryDelay)
    }

    private static func activity(for error: any Error, retryIn: Duration) -> SyncStatus.Activity {
        switch error {
        case let SyncServerError.refused(status, refusal):
            return .failed("\(status) \(refusal.error.code): \(refusal.error.message)", retryIn: retryIn)
        case let SyncServerError.protocolViolation(message):
            return .failed(message, retryIn: retryIn)
        case let error as SyncError:
            return .failed("\(error)", retryIn: retryIn)
        default:
            guard let error = error as? HTTPClientError else { return .offline(retryIn: retryIn) }
            switch error {
            case .transport, .timedOut:
                return .offline(retryIn: retryIn)
            case let .authenticationFailed(failure):
                return .failed("Not logged in: \(failure)", retryIn: retryIn)
            default:
                return .failed("\(error)", retryIn: retryIn)
            }
        }
    }

    // MARK: One cycle

    /// Pushes the whole outbox, then pulls until the server has nothing
    /// more. Returns whether anything moved either way.
    @discardableResult
    func cycle() async throws -> Bool {
        let pushed = try await pushAll()
        let pulled = try await pullAll()
        return pushed || pulled
    }

    private func pushAll() async throws -> Bool {
        var limit = configuration.pushLimit
        var byteLimit = configuration.pushByteLimit
        var moved = false
        while true {
            try Task.checkCancellation()
            let entries = try await database.read { [limit, byteLimit] db in
                try LocalReplica.pending(db, limit: limit, maximumBytes: byteLimit)
            }
            guard !entries.isEmpty else { return moved }
            let ids = entries.map(\.change.id)
            do {
                let result = try await server.push(SyncPush(changes: entries.map(\.change)))
                let acknowledged = Set(result.applied).intersection(ids)
                guard !acknowledged.isEmpty else {
                    throw SyncServerError.protocolViolation(
                        "The server took a push but acknowledged none of its changes."
                    )
                }
                try await database.write { db in try LocalReplica.acknowledge(db, ids.filter(acknowledged.contains)) }
                moved = true
            } catch let SyncServerError.refused(status, refusal) {
                let named = refusal.error.changes.filter { ids.contains($0.id) }
                if !named.isEmpty {
                    try await database.write { db in try LocalReplica.setAside(db, named) }
                } else if refusal.error.code == .pushTooLarge || status == 413 {
                    // Too much at once: halve the push; a single change that
                    // is still too large is refused on its own.
                    if entries.count == 1 {
                        let single = SyncRefusal.Change(id: ids[0], code: .tooLarge, message: refusal.error.message)
                        try await database.write { db in try LocalReplica.setAside(db, [single]) }
                    } else {
                        limit = max(1, entries.count / 2)
                        byteLimit = max(1, byteLimit / 2)
                    }
                } else {
                    throw SyncServerError.refused(status: status, refusal)
                }
            }
        }
    }

    private func pullAll() async throws -> Bool {
        var moved = false
        var restarted = false
        while true {
            try Task.checkCancellation()
            let cursor = try await database.read { db in try LocalReplica.cursor(db) }
            let page: SyncPage
            do {
                page = try await server.pull(after: cursor, limit: configuration.pullLimit)
            } catch let SyncServerError.refused(_, refusal) where refusal.error.code == .cursorAhead && !restarted {
                // The server does not know this cursor (its data was reset):
                // start over. Applying rows again changes nothing.
                logger.notice(
                    "Sync cursor ahead of the server's; pulling everything again",
                    metadata: ["cursor": "\(cursor)"]
                )
                try await database.write { db in try LocalReplica.setCursor(db, 0) }
                restarted = true
                continue
            }
            guard page.cursor >= cursor || page.rows.isEmpty else {
                throw SyncServerError.protocolViolation(
                    "The server's cursor went back, from \(cursor) to \(page.cursor)."
                )
            }
            let schema = self.schema
            let changed = try await database.write { db in try LocalReplica.apply(db, page, schema: schema) }
            moved = moved || changed > 0
            guard page.more, !page.rows.isEmpty else { return moved }
        }
    }
}
