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
                return .merge(
                    .run(name: "sync to-dos") { [client] _ in try await client.run(member) },
                    .run(name: "sync status") { [client] send in
                        for await status in client.statuses() { await send(.statusChanged(status)) }
                    }
                )
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
    /// Syncs for the member until cancelled.
    public var run: @Sendable (User.ID) async throws -> Void
    /// The status now and after each change.
    public var statuses: @Sendable () -> AsyncStream<SyncStatus>
    /// Ends a retry wait.
    public var syncNow: @Sendable () -> Void

    /// A client of these closures.
    public init(
        run: @escaping @Sendable (User.ID) async throws -> Void,
        statuses: @escaping @Sendable () -> AsyncStream<SyncStatus>,
        syncNow: @escaping @Sendable () -> Void
    ) {
        self.run = run
        self.statuses = statuses
        self.syncNow = syncNow
    }

    /// No sync: the list stays on this device.
    public static let unavailable = TodoSyncClient(
        run: { _ in },
        statuses: { AsyncStream { $0.finish() } },
        syncNow: {}
    )

    /// The engine on `database`, through `client` (which carries the
    /// member's bearer token) to the example server's `/sync` endpoints.
    public static func live(database: SQLiteDatabase, client: HTTPClient) -> TodoSyncClient {
        var configuration = SyncEngine.Configuration()
        // A server that comes back is noticed within 10 s, not a minute:
        // the example's server is a local one, restarted often.
        configuration.maximumRetryDelay = .seconds(10)
        let engine = SyncEngine(
            database: database,
            schema: TodoSchema.sync,
            server: HTTPSyncServer(client: client),
            configuration: configuration
        )
        return TodoSyncClient(
            run: { member in try await engine.run(account: member.rawValue) },
            statuses: { engine.statuses },
            syncNow: { engine.syncNow() }
        )
    }
}
