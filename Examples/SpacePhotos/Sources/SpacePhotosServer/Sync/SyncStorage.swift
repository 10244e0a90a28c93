import Foundation
import Logging
import ServiceLifecycle

/// Where the example server keeps its synced rows
/// (``ExampleServer/Configuration/syncStorage``).
public enum SyncStorage: Sendable, Hashable {
    /// In memory: nothing to set up, and nothing kept once the server stops.
    case memory
    /// In the SQLite database at this file (made if missing): a restarted
    /// server carries on where it stopped (`spacephotos serve --sync-database`).
    case sqlite(URL)
    /// In the PostgreSQL database at this URL
    /// (`postgres://user:password@host:port/database`), in `schema`
    /// (made if missing): servers sharing it serve the same rows, and each
    /// wakes its `GET /sync/live` sockets for the others' pushes
    /// (``PostgresSyncStore``).
    case postgres(URL, schema: String = "public")

    /// The storage a `--sync-database` value names: a `postgres://` or
    /// `postgresql://` URL, or else the path of an SQLite file.
    ///
    /// - Throws: ``SyncStorageError/invalidURL`` for a PostgreSQL URL that
    ///   does not parse (never taken for a file name, which would hide the
    ///   mistake and write the password into a path).
    public static func parse(_ value: String) throws(SyncStorageError) -> SyncStorage {
        let lowercased = value.lowercased()
        guard lowercased.hasPrefix("postgres://") || lowercased.hasPrefix("postgresql://") else {
            return .sqlite(URL(fileURLWithPath: value))
        }
        guard let url = URL(string: value), url.host?.isEmpty == false else { throw .invalidURL }
        return .postgres(url)
    }

    /// Opens the store; whoever opens it closes it (``SyncStoreService``).
    /// A PostgreSQL store's listener takes `hooks` (tests).
    func open(
        logger: Logger,
        hooks: PostgresSyncStore.ListenerHooks = PostgresSyncStore.ListenerHooks()
    ) async throws -> any SyncStore {
        switch self {
        case .memory: try SQLiteSyncStore()
        case .sqlite(let file): try SQLiteSyncStore(file: file)
        case .postgres(let url, let schema):
            try await PostgresSyncStore.open(url: url, schema: schema, logger: logger, hooks: hooks)
        }
    }
}

/// Why a `--sync-database` value was refused.
public enum SyncStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It starts like a PostgreSQL URL but is not one (the value is not
    /// repeated: it may hold a password).
    case invalidURL

    /// One sentence for the command line.
    public var description: String {
        "The PostgreSQL URL does not parse: use postgres://user:password@host:port/database, the password percent-encoded."
    }
}

/// Keeps a server's ``SyncStore`` open while the server runs, and closes it
/// when the server stops; meanwhile hands the store's cursor changes to the
/// server's `GET /sync/live` sockets.
///
/// Added to the application's services, which stop in the reverse order of
/// their start: after the HTTP server, so no request still holds the store.
struct SyncStoreService: Service {
    let store: any SyncStore
    let feed: SyncCursorFeed
    let logger: Logger

    func run() async throws {
        // Subscribed before anything runs: a change announced while the
        // service starts is not missed.
        let changes = store.cursorChanges()
        await withDiscardingTaskGroup { group in
            // Children of this task: cancelling the service ends them, at
            // whatever point of their start they are.
            if let postgres = store as? PostgresSyncStore {
                // After a lost connection, the sockets' members catch up.
                group.addTask { await postgres.run(watching: { feed.members }) }
            }
            group.addTask {
                // Ends when the store closes or the task is cancelled.
                for await change in changes {
                    feed.publish(change.cursor, member: change.member)
                }
            }
            // Cancellation ends the wait too: the store closes either way.
            try? await gracefulShutdown()
            group.cancelAll()
        }
        guard let sqlite = store as? SQLiteSyncStore else { return }
        do {
            try sqlite.close()
        } catch {
            logger.error("The sync database did not close", metadata: ["error": "\(error)"])
        }
    }

    /// Closes a store that never ran (the server could not be set up).
    static func close(_ store: any SyncStore) {
        // A PostgreSQL store holds no connection until it runs.
        try? (store as? SQLiteSyncStore)?.close()
    }
}
