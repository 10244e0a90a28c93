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

    /// Opens the store; whoever opens it closes it.
    func open() throws -> SQLiteSyncStore {
        switch self {
        case .memory: try SQLiteSyncStore()
        case .sqlite(let file): try SQLiteSyncStore(file: file)
        }
    }
}

/// Keeps a server's ``SQLiteSyncStore`` open while the server runs, and
/// closes it when the server stops.
///
/// Added to the application's services, which stop in the reverse order of
/// their start: after the HTTP server, so no request still holds the store.
struct SyncStoreService: Service {
    let store: SQLiteSyncStore
    let logger: Logger

    func run() async throws {
        // Cancellation ends the wait too: the store closes either way.
        try? await gracefulShutdown()
        do {
            try store.close()
        } catch {
            logger.error("The sync database did not close", metadata: ["error": "\(error)"])
        }
    }
}
