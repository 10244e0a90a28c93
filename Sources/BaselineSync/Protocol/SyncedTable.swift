import Foundation

/// A table whose rows sync: its name and the columns that travel.
///
/// The same description serves both ends. On a device it says which
/// columns the change-capturing triggers record (see ``SyncSchema``); on a
/// server it says what a push may carry (see ``validate(_:)``).
///
/// ```swift
/// let todo = SyncedTable("todo", columns: [
///     .text("text", maximumBytes: 2_000),
///     .real("date"),
/// ])
/// ```
///
/// A row is known across devices by its id column: text the devices make
/// (UUIDs), so that two offline devices never pick the same id. It is the
/// primary key, `id` unless named otherwise, or any `UNIQUE NOT NULL`
/// column beside a local integer key (which then differs from device to
/// device and never travels).
public struct SyncedTable: Sendable, Hashable {
    /// The table's name.
    public var name: String
    /// The column that identifies a row on every device.
    public var idColumn: String
    /// The columns that sync, the primary key excluded.
    public var columns: [SyncedColumn]

    /// A table `name` whose `columns` sync, its rows known by `idColumn`.
    public init(_ name: String, idColumn: String = "id", columns: [SyncedColumn]) {
        self.name = name
        self.idColumn = idColumn
        self.columns = columns
    }

    /// The longest row id a server takes, in UTF-8 bytes.
    public static let maximumRowIDBytes = 128

    /// Why `change`, addressed to this table, cannot be applied; nil when it
    /// can. Checks the row id, that a delete carries no fields, and each
    /// field's column, type and size; not the clock or the owner, which are
    /// the server's to check.
    public func validate(_ change: SyncChange) -> (code: SyncRefusalCode, message: String)? {
        // NUL is refused too: PostgreSQL's text cannot hold it, and an id
        // one store takes must be one every store takes.
        guard !change.id.isEmpty, change.id.utf8.count <= Self.maximumRowIDBytes, !change.id.utf8.contains(0) else {
            return (.malformed, "A change id is 1…\(Self.maximumRowIDBytes) bytes, without NUL.")
        }
        guard !change.row.isEmpty, change.row.utf8.count <= Self.maximumRowIDBytes, !change.row.utf8.contains(0) else {
            return (.malformed, "A row id is 1…\(Self.maximumRowIDBytes) bytes, without NUL.")
        }
        if change.deleted {
            return change.fields.isEmpty ? nil : (.malformed, "A delete carries no fields.")
        }
        for (name, value) in change.fields {
            guard let column = columns.first(where: { $0.name == name }) else {
                return (.invalidField, "\(self.name) has no synced column \(name).")
            }
            if let problem = column.problem(with: value) { return problem }
        }
        return nil
    }
}

/// A column that syncs: its name, what it holds, and how large a value may be.
public struct SyncedColumn: Sendable, Hashable {
    /// What a column holds.
    public enum Kind: Sendable, Hashable {
        /// Text, at most `maximumBytes` of UTF-8.
        case text(maximumBytes: Int)
        /// 64-bit integers.
        case integer
        /// Doubles; integers are taken too, as SQLite stores whole reals.
        case real
        /// Bytes, at most `maximumBytes`.
        case blob(maximumBytes: Int)
    }

    /// The column's name.
    public var name: String
    /// What it holds.
    public var kind: Kind
    /// Whether it may be `NULL`.
    public var isNullable: Bool

    /// A column `name` holding `kind`, `NULL` allowed if `isNullable`.
    public init(_ name: String, _ kind: Kind, isNullable: Bool = false) {
        self.name = name
        self.kind = kind
        self.isNullable = isNullable
    }

    /// A text column; 64 KiB unless told.
    public static func text(_ name: String, maximumBytes: Int = 65_536, isNullable: Bool = false) -> SyncedColumn {
        SyncedColumn(name, .text(maximumBytes: maximumBytes), isNullable: isNullable)
    }

    /// An integer column.
    public static func integer(_ name: String, isNullable: Bool = false) -> SyncedColumn {
        SyncedColumn(name, .integer, isNullable: isNullable)
    }

    /// A real column.
    public static func real(_ name: String, isNullable: Bool = false) -> SyncedColumn {
        SyncedColumn(name, .real, isNullable: isNullable)
    }

    /// A blob column; 1 MiB unless told.
    public static func blob(_ name: String, maximumBytes: Int = 1_048_576, isNullable: Bool = false) -> SyncedColumn {
        SyncedColumn(name, .blob(maximumBytes: maximumBytes), isNullable: isNullable)
    }

    func problem(with value: SyncValue) -> (code: SyncRefusalCode, message: String)? {
        switch (kind, value) {
        case (_, .null):
            return isNullable ? nil : (.invalidField, "\(name) cannot be null.")
        case let (.text(limit), .text(text)):
            return text.utf8.count <= limit ? nil : (.tooLarge, "\(name) holds at most \(limit) bytes.")
        case let (.blob(limit), .blob(data)):
            return data.count <= limit ? nil : (.tooLarge, "\(name) holds at most \(limit) bytes.")
        case let (.real, .real(value)):
            return value.isFinite ? nil : (.invalidField, "\(name) holds finite numbers.")
        case (.integer, .integer), (.real, .integer):
            return nil
        default:
            return (.invalidField, "\(name) does not hold that type of value.")
        }
    }
}
