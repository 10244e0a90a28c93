import Foundation

// The sync protocol's JSON messages, shared by the client (SyncEngine) and
// by servers written in Swift. The protocol itself is described in the
// "Syncing records" article; every type here says what it carries.

/// One local write to one row, as a device pushes it: the fields it set (or
/// a delete), stamped with the device's hybrid logical clock.
///
/// ```json
/// {"id": "6f1c…", "table": "todo", "row": "9b2e…", "at": "0000018c…",
///  "deleted": false, "fields": {"text": {"text": "Buy milk"}}}
/// ```
public struct SyncChange: Sendable, Hashable, Codable {
    /// The change's id, made by the device and unique: a server applies a
    /// change id once, however often it is pushed.
    public var id: String
    /// The synced table.
    public var table: String
    /// The row's id (its primary key, as text).
    public var row: String
    /// When the device made the change.
    public var timestamp: HybridTimestamp
    /// Whether the change deletes the row.
    public var deleted: Bool
    /// The fields the change set, by column name; empty for a delete.
    public var fields: [String: SyncValue]

    /// A change with these parts.
    public init(
        id: String,
        table: String,
        row: String,
        timestamp: HybridTimestamp,
        deleted: Bool = false,
        fields: [String: SyncValue] = [:]
    ) {
        self.id = id
        self.table = table
        self.row = row
        self.timestamp = timestamp
        self.deleted = deleted
        self.fields = fields
    }

    /// The change as registers to merge into a row.
    public var state: RowState {
        deleted ? .delete(at: timestamp) : .write(fields, at: timestamp)
    }

    private enum CodingKeys: String, CodingKey {
        case id, table, row, deleted, fields
        case timestamp = "at"
    }
}

/// The body of `POST /sync/push`: changes in the order the device made them.
public struct SyncPush: Sendable, Hashable, Codable {
    /// The changes.
    public var changes: [SyncChange]

    /// A push of `changes`.
    public init(changes: [SyncChange]) {
        self.changes = changes
    }
}

/// The answer to a push the server took: every change of it is now applied
/// (or was, by an earlier push with the same ids).
public struct SyncPushResult: Sendable, Hashable, Codable {
    /// The ids of the push's changes.
    public var applied: [String]
    /// The member's cursor after the push, for a client that wants to know
    /// whether a pull has anything new.
    public var cursor: Int64

    /// A result with these parts.
    public init(applied: [String], cursor: Int64) {
        self.applied = applied
        self.cursor = cursor
    }
}

/// One row as a pull returns it: everything the server knows of it, its
/// registers with their timestamps, deleted rows included (as tombstones).
public struct SyncRow: Sendable, Hashable, Codable {
    /// The synced table.
    public var table: String
    /// The row's id.
    public var row: String
    /// Its registers.
    public var state: RowState

    /// A row with these parts.
    public init(table: String, row: String, state: RowState) {
        self.table = table
        self.row = row
        self.state = state
    }
}

/// The answer to `GET /sync/pull?after=<cursor>&limit=<n>`: the member's
/// rows changed after `cursor`, oldest change first, at most `limit` of them.
public struct SyncPage: Sendable, Hashable, Codable {
    /// The rows.
    public var rows: [SyncRow]
    /// Where the next pull starts: the position of the page's last row, or
    /// the request's own cursor for an empty page.
    public var cursor: Int64
    /// Whether more rows follow this page.
    public var more: Bool

    /// A page with these parts.
    public init(rows: [SyncRow], cursor: Int64, more: Bool) {
        self.rows = rows
        self.cursor = cursor
        self.more = more
    }
}

/// What a server says when it refuses a push or a pull: the error document
/// `{"error": {"code", "message", "changes": [{"id", "code", "message"}]}}`.
///
/// A refused push applies nothing. `changes` names the changes at fault,
/// so that a client can set them aside and push the rest again.
public struct SyncRefusal: Sendable, Hashable, Codable {
    /// One change at fault.
    public struct Change: Sendable, Hashable, Codable {
        /// The change's id.
        public var id: String
        /// Why it was refused.
        public var code: SyncRefusalCode
        /// A sentence for people.
        public var message: String

        /// A fault with these parts.
        public init(id: String, code: SyncRefusalCode, message: String) {
            self.id = id
            self.code = code
            self.message = message
        }
    }

    /// The error, under the document's `error` key.
    public struct Detail: Sendable, Hashable, Codable {
        /// Why the request was refused.
        public var code: SyncRefusalCode
        /// A sentence for people.
        public var message: String
        /// The changes at fault; empty when the request as a whole is.
        public var changes: [Change]

        /// A refusal with these parts.
        public init(code: SyncRefusalCode, message: String, changes: [Change] = []) {
            self.code = code
            self.message = message
            self.changes = changes
        }

        /// Decodes `changes` as empty when absent (other servers' errors).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = try container.decode(SyncRefusalCode.self, forKey: .code)
            message = try container.decode(String.self, forKey: .message)
            changes = try container.decodeIfPresent([Change].self, forKey: .changes) ?? []
        }
    }

    /// The error.
    public var error: Detail

    /// A refusal of `detail`.
    public init(_ detail: Detail) {
        error = detail
    }
}

/// Why a server refused a sync request: a stable code to branch on. Codes
/// this client does not know decode as themselves.
public struct SyncRefusalCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code's text.
    public var rawValue: String

    /// The code `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The code's text.
    public var description: String { rawValue }

    /// A change that does not follow the protocol: no id, a bad timestamp,
    /// a row id too long, a delete with fields.
    public static let malformed = SyncRefusalCode(rawValue: "malformed_change")
    /// A change to a table the server does not sync.
    public static let unknownTable = SyncRefusalCode(rawValue: "unknown_table")
    /// A change of a column the table does not sync, or a value of the
    /// wrong type for it.
    public static let invalidField = SyncRefusalCode(rawValue: "invalid_field")
    /// A value larger than the server takes for its column.
    public static let tooLarge = SyncRefusalCode(rawValue: "value_too_large")
    /// A change stamped further ahead of the server's clock than it allows:
    /// a device with a wrong clock would otherwise win every conflict.
    public static let clockAhead = SyncRefusalCode(rawValue: "clock_ahead")
    /// A change to a row that belongs to another member.
    public static let notYours = SyncRefusalCode(rawValue: "not_yours")
    /// A pull with a cursor the server never gave (a server that lost data,
    /// or another server's cursor): the client starts again from zero.
    public static let cursorAhead = SyncRefusalCode(rawValue: "cursor_ahead")
    /// A push with more changes, or more bytes, than the server takes at once.
    public static let pushTooLarge = SyncRefusalCode(rawValue: "push_too_large")
}
