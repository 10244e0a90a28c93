import Foundation

/// A field's value as it travels between devices: one of SQLite's storage
/// classes, kept apart so that `1` and `1.0` stay what they were.
///
/// In JSON: `null`, `{"integer": 1}`, `{"real": 1.5}`, `{"text": "…"}`,
/// `{"blob": "<base64>"}`.
public enum SyncValue: Sendable, Hashable, Codable {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double; infinities and NaN cannot travel in JSON.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes; base64 in JSON.
    case blob(Data)

    private enum Key: String, CodingKey {
        case integer, real, text, blob
    }

    /// Decodes `null` or an object with exactly one of the keys `integer`,
    /// `real`, `text`, `blob`; anything else is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "A value is null or has exactly one of integer, real, text, blob."
                )
            )
        }
        switch key {
        case .integer: self = .integer(try container.decode(Int64.self, forKey: .integer))
        case .real: self = .real(try container.decode(Double.self, forKey: .real))
        case .text: self = .text(try container.decode(String.self, forKey: .text))
        case .blob: self = .blob(try container.decode(Data.self, forKey: .blob))
        }
    }

    /// Encodes `null` or a one-key object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case let .integer(value):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .integer)
        case let .real(value):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .real)
        case let .text(value):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .text)
        case let .blob(value):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .blob)
        }
    }

    /// A total order, used only to break a tie between two writes with the
    /// same timestamp (which honest nodes never make), so that a merge gives
    /// the same result in any order.
    static func precedes(_ lhs: SyncValue, _ rhs: SyncValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a < b
        // Bit patterns: a total order that covers NaN too.
        case let (.real(a), .real(b)): return a.bitPattern < b.bitPattern
        case let (.text(a), .text(b)): return Array(a.utf8).lexicographicallyPrecedes(b.utf8)
        case let (.blob(a), .blob(b)): return a.lexicographicallyPrecedes(b)
        default: return lhs.rank < rhs.rank
        }
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .integer: 1
        case .real: 2
        case .text: 3
        case .blob: 4
        }
    }
}

/// A last-writer-wins register: a value and the timestamp of the write that set it.
///
/// In JSON: `{"value": …, "at": "<timestamp>"}`.
public struct Stamped<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// The value written.
    public var value: Value
    /// When it was written.
    public var timestamp: HybridTimestamp

    /// `value`, written at `timestamp`.
    public init(_ value: Value, at timestamp: HybridTimestamp) {
        self.value = value
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey {
        case value
        case timestamp = "at"
    }
}

/// What is known of one synced row: whether it exists, and each field,
/// each with the timestamp of the write that set it.
///
/// ## The rule: per field, the later write wins
///
/// Every field, and the row's existence, is a register of its own that
/// keeps the write with the later ``HybridTimestamp``. A write of fields
/// also sets the row alive at its timestamp; a delete sets it not alive
/// (the fields stay, for a later write that brings the row back). So:
///
/// - two devices editing different fields both keep their edit;
/// - two edits of one field: the later stands;
/// - an edit on one device and a delete on another: the later intent wins —
///   deleted if the delete came after, back (with the edit) if the edit did;
/// - delete, then insert again with the same id: alive.
///
/// ``merging(_:)`` is commutative, associative and idempotent, so devices
/// that have seen the same writes, in any order and any number of times,
/// hold the same row.
///
/// In JSON: `{"alive": {"value": true, "at": …}, "fields": {"text": {"value": {"text": "…"}, "at": …}}}`.
public struct RowState: Sendable, Hashable, Codable {
    /// Whether the row exists; nil until a write or delete is known.
    public var alive: Stamped<Bool>?
    /// The fields by column name.
    public var fields: [String: Stamped<SyncValue>]

    /// A row with these registers; nothing known by default.
    public init(alive: Stamped<Bool>? = nil, fields: [String: Stamped<SyncValue>] = [:]) {
        self.alive = alive
        self.fields = fields
    }

    /// A write of `fields` at `timestamp`: the row is alive from then on.
    public static func write(_ fields: [String: SyncValue], at timestamp: HybridTimestamp) -> RowState {
        RowState(
            alive: Stamped(true, at: timestamp),
            fields: fields.mapValues { Stamped($0, at: timestamp) }
        )
    }

    /// A delete at `timestamp`.
    public static func delete(at timestamp: HybridTimestamp) -> RowState {
        RowState(alive: Stamped(false, at: timestamp))
    }

    /// Whether the row exists.
    public var exists: Bool { alive?.value ?? false }

    /// The latest timestamp in the row.
    public var latest: HybridTimestamp? {
        ([alive?.timestamp] + fields.values.map(\.timestamp)).compactMap { $0 }.max()
    }

    /// This row with `other` merged in, register by register.
    public func merging(_ other: RowState) -> RowState {
        var merged = self
        merged.alive = Self.later(alive, other.alive) { $0 && !$1 }
        for (name, field) in other.fields {
            merged.fields[name] = Self.later(fields[name], field) { SyncValue.precedes($0, $1) }
        }
        return merged
    }

    /// Whichever register has the later write; on equal timestamps, the
    /// value `precedes` orders last, so that the choice is the same
    /// whichever side is which.
    private static func later<Value>(
        _ a: Stamped<Value>?,
        _ b: Stamped<Value>?,
        precedes: (Value, Value) -> Bool
    ) -> Stamped<Value>? {
        guard let a else { return b }
        guard let b else { return a }
        if a.timestamp != b.timestamp { return a.timestamp < b.timestamp ? b : a }
        return precedes(a.value, b.value) ? b : a
    }
}
