import Foundation
import GRDB

// `nonisolated` for an app target whose default isolation is the main actor:
// a GRDB record: read and written on the database's queue.

/// A to-do item: what a SwiftData `@Model` would hold, on SQLite.
///
/// `id` is assigned by the database when the item is first inserted, and never
/// changes afterwards: editing updates the row in place.
public nonisolated struct Todo: Codable, Sendable, Hashable, Identifiable {
    /// The longest text an item holds, in characters.
    public static let maximumTextLength = 500

    /// The row's id, assigned by the database on insert; `nil` until then.
    public var id: Int64?
    /// What to do: trimmed, not empty, at most ``maximumTextLength`` characters
    /// once ``TodoRepository`` has stored it.
    public var text: String
    /// When the item was created; the list is sorted by it.
    public var date: Date

    /// An item with the given values; leave `id` `nil` for one not yet inserted.
    public init(id: Int64? = nil, text: String, date: Date) {
        self.id = id
        self.text = text
        self.date = date
    }
}

nonisolated extension Todo: FetchableRecord, MutablePersistableRecord {
    /// The SQLite table the items live in, `todo`.
    public static let databaseTableName = "todo"

    /// The table's columns, for queries.
    public enum Columns {
        /// The `id` column, the primary key.
        public static let id = Column(CodingKeys.id)
        /// The `text` column.
        public static let text = Column(CodingKeys.text)
        /// The `date` column, indexed with `id` for the list order.
        public static let date = Column(CodingKeys.date)
    }

    /// The columns a request for items selects, in this order: what
    /// ``init(row:)`` reads by position.
    public static var databaseSelection: [any SQLSelectable] { [Columns.id, Columns.text, Columns.date] }

    /// Dates are stored as seconds since 1970 (a `REAL`): reading one is a
    /// division, where the ISO 8601 text GRDB writes by default goes through
    /// a calendar. A search that lists 10,000 items reads 10,000 dates.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    /// Reads a row by hand rather than through `Decodable`, by position
    /// (``databaseSelection``) rather than by name: a search that lists
    /// 10,000 items decodes them all, and `Decodable`, or a lookup of each
    /// column's name, costs several times as much per row.
    public init(row: Row) throws {
        id = row[0]
        text = row[1]
        date = Date(timeIntervalSince1970: row[2])
    }

    /// Takes the id the database assigned to the new row.
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The list order: oldest first, so the newest is at the bottom.
    static func inListOrder() -> QueryInterfaceRequest<Todo> {
        Todo.order(Columns.date, Columns.id)
    }

    /// The items whose text contains `search`, in list order; every item
    /// when `search` is empty.
    ///
    /// The case of ASCII letters is ignored (SQLite's `lower`, as its `LIKE`
    /// does); other text matches as typed. `instr`, not `LIKE`: the search
    /// is plain text, `%` and `_` included, with no pattern to escape and no
    /// pattern length limit. Either scans the table (no index serves a
    /// substring), a few milliseconds at 10,000 items.
    static func matching(_ search: String) -> QueryInterfaceRequest<Todo> {
        guard !search.isEmpty else { return inListOrder() }
        return inListOrder().filter(literal: "instr(lower(\(Columns.text)), lower(\(search))) > 0")
    }
}
