import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineSync
import Foundation

/// The to-do list's sync with the server, for the member logged in, and
/// its status for the to-do screen.
///
/// ```swift
/// .task { await store.send(.todoSync(.start(member: member.id))).finish() }   // while logged in
/// Text(store.todoSync.line)                                 // "synced", "offline, 2 to send", …
/// ```
///
/// The list itself needs nothing from here: it shows the database, and
/// pulled items arrive there like any other write. `.start` runs the
/// engine until `.stop` (sent at log out) or until the task that sent it
/// ends. It syncs for the member it names: a database that synced for
/// another member is not synced (its status says so), since its unsent
/// changes are that member's.
public struct TodoSync: Reducer {
    /// What the screen shows.
    public struct State: Equatable, Sendable {
        /// The engine's last status; nil before it starts.
        public var status: SyncStatus?

        /// Not started.
        public init(status: SyncStatus? = nil) {
            self.status = status
        }

        /// One line for the screen's status bar.
        public var line: String {
            guard let status else { return "sync off" }
            var parts: [String]
            switch status.activity {
            case .starting: parts = ["sync starting"]
            case .syncing: parts = ["syncing"]
            case .idle: parts = [status.isLive ? "synced, live" : "synced"]
            case .offline: parts = ["offline"]
            case let .failed(message, _): parts = ["sync failed: \(message)"]
            case let .stopped(message): parts = ["sync stopped: \(message)"]
            }
            if status.pendingChanges > 0 { parts.append("\(status.pendingChanges) to send") }
            if status.refusedChanges > 0 { parts.append("\(status.refusedChanges) refused") }
            return parts.joined(separator: ", ")
        }
    }

    /// What the screen and the app can do.
    @CasePathable
    public enum Action: Equatable, Sendable {
        /// Starts syncing for the member logged in.
        case start(member: User.ID)
        /// Stops.
        case stop
        /// The engine's status changed.
        case statusChanged(SyncStatus)
        /// Syncs now, without waiting for a retry.
        case syncNowTapped
    }

    enum CancelID { case engine }

    let client: TodoSyncClient

    /// The feature on `client`.
    public init(client: TodoSyncClient) {
        self.client = client
    }

    /// The feature's one reducer.
    public var body: some Reducer<State, Action> {
        Reduce { state, action in
            switch action {
            case let .start(member):
                return .run(name: "sync to-dos") { [client] send in
                    try await client.run(member) { status in await send(.statusChanged(status)) }
                }
                .cancellable(id: CancelID.engine, cancelInFlight: true)
            case .stop:
                state.status = nil
                return .cancel(id: CancelID.engine)
            case let .statusChanged(status):
                state.status = status
                return .none
            case .syncNowTapped:
                return .run(name: "sync now") { [client] _ in client.syncNow() }
            }
        }
    }
}

/// The to-do list's sync engine, as closures, so tests put doubles in.
public struct TodoSyncClient: Sendable {
    /// Syncs the member's list until cancelled, reporting each status.
    public var run:
        @Sendable (_ member: User.ID, _ status: @escaping @Sendable (SyncStatus) async -> Void) async throws -> Void
    /// Ends a retry wait.
    public var syncNow: @Sendable () -> Void

    /// A client of these closures.
    public init(
        run:
            @escaping @Sendable (User.ID, _ status: @escaping @Sendable (SyncStatus) async -> Void) async throws -> Void,
        syncNow: @escaping @Sendable () -> Void
    ) {
        self.run = run
        self.syncNow = syncNow
    }

    /// No sync: the list stays on this device.
    public static let unavailable = TodoSyncClient(run: { _, _ in }, syncNow: {})

    /// The engine on `database`, through `client` (which carries the
    /// member's bearer token) to the example server's `/sync` endpoints.
    public static func live(database: SQLiteDatabase, client: HTTPClient) -> TodoSyncClient {
        live(client: client) { _ in database }
    }

    /// An engine per run on the member's database open in `databases`.
    public static func live(databases: TodoDatabases, client: HTTPClient) -> TodoSyncClient {
        live(client: client) { member in try await databases.database(for: member) }
    }

    private static func live(
        client: HTTPClient,
        database: @escaping @Sendable (User.ID) async throws -> SQLiteDatabase
    ) -> TodoSyncClient {
        var configuration = SyncEngine.Configuration()
        // A server that comes back is noticed within 10 s, not a minute:
        // the example's server is a local one, restarted often.
        configuration.maximumRetryDelay = .seconds(10)
        let server = HTTPSyncServer(client: client)
        let schema = TodoSchema.sync
        let running = LockedValue<SyncEngine?>(nil)
        return TodoSyncClient(
            run: { [configuration] member, report in
                let engine = SyncEngine(
                    database: try await database(member),
                    schema: schema,
                    server: server,
                    configuration: configuration
                )
                running.withLock { $0 = engine }
                defer { running.withLock { if $0 === engine { $0 = nil } } }
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for await status in engine.statuses { await report(status) } }
                        group.addTask { try await engine.run(account: member.rawValue) }
                        defer { group.cancelAll() }
                        // The statuses never end: the run's end (cancelled,
                        // or stopped for another member's database) is the group's.
                        _ = try await group.next()
                    }
                } catch {
                    // Its last status (stopped, say) may not have been forwarded.
                    await report(engine.status)
                    throw error
                }
            },
            syncNow: { running.withLock { $0 }?.syncNow() }
        )
    }
}
