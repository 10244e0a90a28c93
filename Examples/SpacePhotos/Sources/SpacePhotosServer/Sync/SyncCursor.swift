/// The cursors the server hands out (in ``SyncPage``, ``SyncPushResult``
/// and `GET /sync/live`): a member's `seq` in the low 40 bits, and the
/// store's ``SyncStore/epoch`` above them.
///
/// Without the epoch, a server that lost its data (a store in memory,
/// restarted) would count each member's `seq` from 1 again; once it passed
/// a device's old cursor, that device would pull only the rows after it and
/// never see the ones before. With it, an old cursor does not match the new
/// epoch and is refused as `cursor_ahead`, and the device pulls everything
/// again. Cursor 0, "nothing yet", means the same in every epoch.
///
/// Clients treat cursors as opaque numbers they send back.
public struct SyncCursor: Sendable, Hashable {
    /// The bits of `seq`: a member may change rows about 10¹² times.
    public static let seqBits = 40
    /// The largest `seq` a cursor holds; a store's counter stops there.
    public static let maximumSeq: Int64 = (1 << seqBits) - 1
    /// The epochs a store draws from: positive, and small enough that a
    /// cursor stays a positive `Int64` (23 bits).
    public static let epochs: ClosedRange<Int64> = 1...((1 << (63 - seqBits)) - 1)

    /// The store's epoch.
    public var epoch: Int64
    /// The member's `seq`, 0 before any change.
    public var seq: Int64

    /// The cursor for `seq` in `epoch`.
    public init(seq: Int64, epoch: Int64) {
        self.seq = seq
        self.epoch = epoch
    }

    /// The number a client holds: 0 for `seq` 0, else the epoch and `seq`.
    public var rawValue: Int64 {
        seq == 0 ? 0 : epoch << Self.seqBits | seq
    }

    /// The cursor `rawValue` stands for in `epoch`; nil when it is not one
    /// of this epoch's (a negative number, or another epoch's).
    public init?(_ rawValue: Int64, epoch: Int64) {
        guard rawValue != 0 else {
            self.init(seq: 0, epoch: epoch)
            return
        }
        guard rawValue > 0, rawValue >> Self.seqBits == epoch else { return nil }
        self.init(seq: rawValue & Self.maximumSeq, epoch: epoch)
    }
}
