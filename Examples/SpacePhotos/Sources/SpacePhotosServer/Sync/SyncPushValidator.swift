import BaselineSync
import Foundation

/// Checks a push's changes before anything is written: that each one's
/// table is synced, that it fits the table (``SyncedTable/validate(_:)``),
/// and that its clock is not too far ahead of the server's.
///
/// Ownership is the store's to check, as it needs the stored rows.
struct SyncPushValidator: Sendable {
    /// The synced tables by name.
    let tables: [String: SyncedTable]
    /// How far ahead of the server's clock a change's timestamp may be.
    let clockTolerance: Duration
    let now: @Sendable () -> Date

    init(tables: [SyncedTable], clockTolerance: Duration, now: @escaping @Sendable () -> Date) {
        // A name configured twice: the first description stands.
        self.tables = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.clockTolerance = clockTolerance
        self.now = now
    }

    /// Every change at fault, in push order, one fault each; empty when the
    /// push can be applied.
    func faults(in changes: [SyncChange]) -> [SyncRefusal.Change] {
        let latest = latestAcceptedMilliseconds()
        return changes.compactMap { fault(of: $0, latest: latest) }
    }

    /// Why `change` cannot be applied, nil when it can; `latest` is
    /// ``latestAcceptedMilliseconds()``, read once for the whole push.
    func fault(of change: SyncChange, latest: UInt64) -> SyncRefusal.Change? {
        guard let table = tables[change.table] else {
            return SyncRefusal.Change(
                id: change.id,
                code: .unknownTable,
                message: "The server does not sync a table \(change.table.prefix(64))."
            )
        }
        if let (code, message) = table.validate(change) {
            return SyncRefusal.Change(id: change.id, code: code, message: message)
        }
        guard change.timestamp.milliseconds <= latest else {
            return SyncRefusal.Change(
                id: change.id,
                code: .clockAhead,
                message:
                    "The change is stamped more than \(toleranceMilliseconds / 1000) s ahead of the server's clock: check the device's clock."
            )
        }
        return nil
    }

    /// The tolerance in whole milliseconds, 0 for a negative one.
    var toleranceMilliseconds: UInt64 {
        let components = clockTolerance.components
        guard components.seconds >= 0, components.attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(components.seconds).multipliedReportingOverflow(by: 1000)
        let (milliseconds, carry) = whole.addingReportingOverflow(
            UInt64(components.attoseconds / 1_000_000_000_000_000)
        )
        return overflow || carry ? .max : milliseconds
    }

    /// The server's clock plus the tolerance, saturating.
    func latestAcceptedMilliseconds() -> UInt64 {
        // A clock before 1970 (or unreadable) reads as 1970.
        let now = UInt64(exactly: (now().timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
        let (latest, overflow) = now.addingReportingOverflow(toleranceMilliseconds)
        return overflow ? .max : latest
    }
}
