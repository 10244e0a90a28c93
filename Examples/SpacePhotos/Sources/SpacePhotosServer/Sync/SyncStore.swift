import BaselineSync

/// Where a sync server keeps its members' rows: what `POST /sync/push` writes
/// and `GET /sync/pull` reads.
///
/// The model is three SQL tables, so that a PostgreSQL store can follow
/// ``SQLiteSyncStore`` statement for statement:
///
/// ```sql
/// CREATE TABLE sync_row (tbl TEXT, row_id TEXT, member TEXT,
///     state TEXT /* RowState as JSON */, seq BIGINT, PRIMARY KEY (tbl, row_id));
/// CREATE INDEX sync_row_member_seq ON sync_row (member, seq);
/// CREATE TABLE sync_member (member TEXT PRIMARY KEY, seq BIGINT);
/// CREATE TABLE sync_applied (member TEXT, change_id TEXT, seq BIGINT, PRIMARY KEY (member, change_id));
/// CREATE INDEX sync_applied_member_seq ON sync_applied (member, seq);
/// CREATE TABLE sync_epoch (epoch BIGINT);  -- one row, drawn when the tables are made
/// ```
///
/// A row belongs to the member who first wrote it. Each member has a counter
/// (`sync_member.seq`); every row a push changes takes the counter's next
/// value as its `seq`, so a member's rows ordered by `seq` are the order in
/// which they last changed, and a member's cursor is simply a `seq`.
///
/// **A push takes the member's counter row first**, in its transaction
/// (`INSERT … ON CONFLICT DO UPDATE … RETURNING seq` locks it in PostgreSQL),
/// so that pushes of one member run one after the other. Without that, two
/// processes could commit a member's rows out of `seq` order, and a pull
/// between the two commits would move its cursor past a row it never saw.
/// A member's rows change only under that lock; a new row, though, another
/// member may insert at the same moment, so the row's upsert updates it only
/// if it is still the pushing member's (`… DO UPDATE … WHERE sync_row.member
/// = excluded.member RETURNING 1`), and a row it did not write is `not_yours`.
public protocol SyncStore: Sendable {
    /// The epoch of the store's data: a number drawn when its tables were
    /// made (``SyncCursor/epochs``), the same for every server that shares
    /// them, and new when the data is lost (a store in memory restarted, a
    /// file or schema deleted). The server marks its cursors with it, so that
    /// a cursor from lost data is never taken for a position in the new.
    var epoch: Int64 { get }

    /// Applies `changes` for `member` in one transaction, all or nothing.
    ///
    /// Each change is merged into its row (``RowState/merging(_:)``); a row
    /// that changes takes the member's next `seq`. A change id this member
    /// has already pushed is skipped, and answered as applied, so a push
    /// sent again after a lost answer applies nothing twice.
    ///
    /// Change ids are remembered for the member's last
    /// ``SyncAppliedRetention/changes`` changes, not for ever: an older
    /// change pushed again is merged again, which changes nothing (merging
    /// is idempotent), so forgetting it loses nothing.
    ///
    /// Changes are expected to be valid already (their tables known, their
    /// fields checked): the store checks only what needs the stored rows.
    ///
    /// - Throws: ``SyncStoreError/notYours(_:)`` when any change addresses a
    ///   row of another member; nothing is applied then.
    func push(_ changes: [SyncChange], member: String) async throws -> SyncPushResult

    /// `member`'s rows whose `seq` is after `cursor` (a `seq`, not the
    /// ``SyncCursor`` a client holds), in `seq` order, at most
    /// `limit` (at least one) of them.
    ///
    /// - Throws: ``SyncStoreError/cursorAhead(cursor:latest:)`` when `cursor`
    ///   is past the member's counter: the server never gave that cursor.
    func pull(member: String, after cursor: Int64, limit: Int) async throws -> SyncPage

    /// `member`'s counter: the `seq` of its latest change, 0 before any.
    func cursor(member: String) async throws -> Int64

    /// The cursor of each push that changes rows from now on, whichever
    /// member's: what wakes `GET /sync/live` sockets.
    ///
    /// A store that other servers share (``PostgresSyncStore``) yields their
    /// pushes too, so every server's sockets wake; ``SQLiteSyncStore``
    /// yields its own. A cursor may come more than once, or after a larger
    /// one: readers keep the largest. The stream ends when the store closes
    /// or its reader's task is cancelled.
    func cursorChanges() -> AsyncStream<SyncCursorChange>
}

/// Why a ``SyncStore`` refused a push or a pull; nothing was written.
public enum SyncStoreError: Error, Sendable, Hashable {
    /// These changes (their ids, in push order) address rows that belong to
    /// another member.
    case notYours([String])
    /// The cursor is past `latest`, the member's counter.
    case cursorAhead(cursor: Int64, latest: Int64)
    /// The member's counter has no next value (it would pass
    /// ``SyncCursor/maximumSeq``).
    case counterExhausted
}

/// How long a store remembers a member's applied change ids, counted in
/// that member's changes (their `seq`s), and how often it forgets the older
/// ones: every ``interval`` changes, in the push that reaches the multiple.
///
/// The ids only spare a retried push the work of merging again (see
/// ``SyncStore/push(_:member:)``), so the bound is a matter of disk space.
public struct SyncAppliedRetention: Sendable, Hashable {
    /// How many of a member's latest changes keep their ids.
    public var changes: Int64
    /// How many changes pass between two prunings.
    public var interval: Int64

    /// A retention of `changes`, pruned every `interval` changes.
    public init(changes: Int64, interval: Int64) {
        self.changes = max(changes, 0)
        self.interval = max(interval, 1)
    }

    /// 100,000 changes, pruned every 1,000.
    public static let standard = SyncAppliedRetention(changes: 100_000, interval: 1_000)

    /// The `seq` below which ids go, when a push moved the member's counter
    /// from `start` to `counter`; nil when this push prunes nothing.
    func pruneBelow(start: Int64, counter: Int64) -> Int64? {
        guard counter / interval > start / interval, counter > changes else { return nil }
        return counter - changes
    }
}
