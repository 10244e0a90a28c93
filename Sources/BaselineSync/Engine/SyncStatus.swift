import Foundation

/// What a ``SyncEngine`` is doing, for a screen to show.
public struct SyncStatus: Sendable, Equatable {
    /// The engine's activity.
    public enum Activity: Sendable, Equatable {
        /// Not started yet.
        case starting
        /// Pushing or pulling.
        case syncing
        /// Up to date with the server, as far as it knows.
        case idle
        /// The server cannot be reached; the engine tries again after `retryIn`
        /// (sooner when the live channel comes back, or on ``SyncEngine/syncNow()``).
        case offline(retryIn: Duration)
        /// The server answered with an error (a 5xx, a protocol violation, or a
        /// refusal of the whole request such as a 401); the engine tries
        /// again after `retryIn`.
        case failed(String, retryIn: Duration)
        /// The engine stopped without syncing and does not try again: the
        /// database belongs to another account (see
        /// ``SyncEngine/run(account:)``). The message says so.
        case stopped(String)
    }

    /// What the engine is doing.
    public var activity: Activity
    /// Local changes not yet accepted by the server, refused ones excluded.
    public var pendingChanges: Int
    /// Local changes the server refused: kept in the outbox, not pushed
    /// again until ``SyncEngine/retryRefusedChanges()``; see
    /// ``SyncEngine/refusedChanges()``.
    public var refusedChanges: Int
    /// Whether the server's change channel is up: remote changes arrive
    /// within moments instead of at the next poll.
    public var isLive: Bool
    /// When the last complete sync (push and pull) finished.
    public var lastSynced: Date?

    /// A status with these parts.
    public init(
        activity: Activity = .starting,
        pendingChanges: Int = 0,
        refusedChanges: Int = 0,
        isLive: Bool = false,
        lastSynced: Date? = nil
    ) {
        self.activity = activity
        self.pendingChanges = pendingChanges
        self.refusedChanges = refusedChanges
        self.isLive = isLive
        self.lastSynced = lastSynced
    }
}

/// A local change the server refused, and why.
public struct RefusedChange: Sendable, Hashable {
    /// The change.
    public var change: SyncChange
    /// The server's code.
    public var code: SyncRefusalCode
    /// The server's sentence.
    public var message: String
}
