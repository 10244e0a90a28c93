import Foundation
import GRDB

/// What can go wrong with an ``SQLiteDatabase``, in terms an app can act on.
public enum SQLiteDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a database, or is damaged. Offer to move it aside with
    /// ``SQLiteDatabase/moveAside(databaseAt:now:)`` and start afresh.
    case corrupt(path: String)
    /// The database could not be opened or migrated for another reason
    /// (permissions, a full disk, a migration that failed).
    case cannotOpen(path: String, reason: String)
    /// The database was closed.
    case closed
    /// SQLite refused a read or write (a constraint, a bad query).
    case operationFailed(reason: String)

    /// `error` in Baseline's terms. SQLite's errors become `SQLiteDatabaseError`;
    /// errors thrown by your own closures, and `CancellationError`, pass
    /// through unchanged. While opening, every failure is an open failure.
    static func wrap(_ error: any Error, path: String, opening: Bool = false) -> any Error {
        if error is CancellationError || error is SQLiteDatabaseError { return error }
        if opening || error is DatabaseError { return SQLiteDatabaseError(error, path: path, opening: opening) }
        return error
    }

    init(_ error: any Error, path: String, opening: Bool = false) {
        switch error {
        case let error as SQLiteDatabaseError:
            self = error
        case let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT:
            self = .corrupt(path: path)
        case let error as DatabaseError:
            self =
                opening
                ? .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
                : .operationFailed(reason: "\(error)")
        default:
            self = opening ? .cannotOpen(path: path, reason: "\(error)") : .operationFailed(reason: "\(error)")
        }
    }

    /// A sentence describing the failure, with the database's path but never its data.
    public var description: String {
        switch self {
        case let .corrupt(path): "The database at \(path) is damaged or is not a database."
        case let .cannotOpen(path, reason): "The database at \(path) could not be opened: \(reason)"
        case .closed: "The database is closed."
        case let .operationFailed(reason): "The database operation failed: \(reason)"
        }
    }
}
