public import GRDB

/// A read that a live query repeats after every commit that changes its
/// result: how to fetch, and what to show before the first result.
///
/// ```swift
/// .all(Todo.order(Column("date").desc))               // [Todo], [] at first
/// .one(Todo.filter(id: 42))                           // Todo?, nil at first
/// .count(Todo.filter(Column("done") == false))        // Int, 0 at first
/// .sectioned(Todo.order(Column("day"), Column("date")), by: \.day)  // [QuerySection<Day, Todo>]
/// DatabaseQuery(placeholder: 0.0) { db in try Double.fetchOne(db, sql: "SELECT avg(size) FROM photo") ?? 0 }
/// ```
///
/// Use it with ``LiveQuery`` (an observable object for a model or a view)
/// or ``SQLiteDatabase/live(_:)`` (an `AsyncSequence`, for a store's
/// `fetching` or your own loop).
public struct DatabaseQuery<Value: Sendable>: Sendable {
    /// Reads the value; GRDB records which tables and rows it read, and
    /// runs it again after a commit that touches them.
    public let fetch: @Sendable (Database) throws -> Value
    /// The value shown until the first result arrives.
    public let placeholder: Value
    /// Tells two results apart, so that a commit that leaves the result as
    /// it was delivers nothing; `nil` delivers every result.
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    /// A query that runs `fetch`; consecutive equal results are delivered once.
    public init(placeholder: Value, _ fetch: @escaping @Sendable (Database) throws -> Value) where Value: Equatable {
        self.fetch = fetch
        self.placeholder = placeholder
        self.isDuplicate = { $0 == $1 }
    }

    /// A query that runs `fetch`; every result is delivered, as values that
    /// are not `Equatable` cannot be compared.
    public init(placeholder: Value, _ fetch: @escaping @Sendable (Database) throws -> Value) {
        self.fetch = fetch
        self.placeholder = placeholder
        self.isDuplicate = nil
    }

    /// This query with its results transformed by `transform` (a projection,
    /// a sort the database cannot do), in the read, off the main actor.
    public func map<Other: Sendable & Equatable>(
        _ transform: @escaping @Sendable (Value) -> Other
    ) -> DatabaseQuery<Other> {
        let fetch = self.fetch
        return DatabaseQuery<Other>(placeholder: transform(placeholder)) { db in transform(try fetch(db)) }
    }

    /// Every record `request` fetches, in its order.
    public static func all<Record: FetchableRecord & Sendable & Equatable>(
        _ request: some FetchRequest<Record>
    ) -> DatabaseQuery<[Record]> where Value == [Record] {
        DatabaseQuery(placeholder: []) { db in try request.fetchAll(db) }
    }

    /// The first record `request` fetches, or `nil`.
    public static func one<Record: FetchableRecord & Sendable & Equatable>(
        _ request: some FetchRequest<Record>
    ) -> DatabaseQuery<Record?> where Value == Record? {
        DatabaseQuery(placeholder: nil) { db in try request.fetchOne(db) }
    }

    /// How many rows `request` fetches, counted by SQLite (no record is decoded).
    public static func count<Record>(_ request: some FetchRequest<Record>) -> DatabaseQuery<Int> where Value == Int {
        DatabaseQuery(placeholder: 0) { db in try request.fetchCount(db) }
    }

    /// The records `request` fetches, in sections of consecutive records with
    /// the same key, in the request's order (as SwiftData's `sectionBy`).
    ///
    /// Order the request by the key first: records with one key that are not
    /// consecutive make two sections.
    public static func sectioned<Record: FetchableRecord & Sendable & Equatable, Key: Hashable & Sendable>(
        _ request: some FetchRequest<Record>,
        by key: @escaping @Sendable (Record) -> Key
    ) -> DatabaseQuery<[QuerySection<Key, Record>]> where Value == [QuerySection<Key, Record>] {
        DatabaseQuery(placeholder: []) { db in
            QuerySection.sections(of: try request.fetchAll(db), by: key)
        }
    }
}

/// Consecutive results of a ``DatabaseQuery/sectioned(_:by:)`` query that
/// share a key: a list's section.
///
/// ```swift
/// ForEach(days.value) { section in
///     Section(section.key.formatted()) { ForEach(section.elements) { TodoRow($0) } }
/// }
/// ```
public struct QuerySection<Key: Hashable & Sendable, Element: Sendable>: Identifiable, Sendable {
    /// What the section's elements share.
    public var key: Key
    /// The section's elements, in the query's order.
    public var elements: [Element]

    /// A section of `elements` under `key`.
    public init(key: Key, elements: [Element]) {
        self.key = key
        self.elements = elements
    }

    /// The key: sections of one result have distinct keys when the query is
    /// ordered by the key.
    public var id: Key { key }

    /// `elements` in sections of consecutive elements with equal keys.
    static func sections(of elements: [Element], by key: (Element) -> Key) -> [QuerySection] {
        var sections: [QuerySection] = []
        for element in elements {
            let elementKey = key(element)
            if sections.last?.key == elementKey {
                sections[sections.count - 1].elements.append(element)
            } else {
                sections.append(QuerySection(key: elementKey, elements: [element]))
            }
        }
        return sections
    }
}

extension QuerySection: Equatable where Element: Equatable {}
