import BaselinePersistence
import Foundation
import GRDB

// `nonisolated` for an app target whose default isolation is the main actor:
// called by effects, off the main actor.

/// The to-do list's storage: validated reads and writes on an ``SQLiteDatabase``.
///
/// A value you can share between actors: every method runs its work on the
/// database's queues and suspends the caller meanwhile.
public nonisolated struct TodoRepository: Sendable {
    /// The database holding the `todo` table, for each call: one database,
    /// or the logged-in member's.
    private let resolve: @Sendable () async throws -> SQLiteDatabase
    /// The one database, when there is only one.
    private let fixed: SQLiteDatabase?
    private let now: @Sendable () -> Date

    /// A repository on `database` (open it with ``TodoSchema/migrator``);
    /// `now` dates new items (a fixed clock in tests).
    public init(database: SQLiteDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.resolve = { database }
        self.fixed = database
        self.now = now
    }

    /// The database the next call uses.
    ///
    /// - Throws: ``TodoError/noList`` when it is the member's and none is open.
    public func database() async throws -> SQLiteDatabase {
        try await resolve()
    }

    /// A repository on the member's database open in `databases`; a call
    /// while none is open throws ``TodoError/noList``.
    public init(databases: TodoDatabases, now: @escaping @Sendable () -> Date = { Date() }) {
        self.resolve = { try await databases.database() }
        self.fixed = nil
        self.now = now
    }

    /// Adds an item dated now.
    ///
    /// - Throws: ``TodoError/emptyText`` for empty or whitespace-only text,
    ///   ``TodoError/tooLong(maximum:)`` past ``Todo/maximumTextLength``.
    @discardableResult
    public func add(_ text: String) async throws -> Todo {
        let text = try Self.validated(text)
        let date = now()
        return try await database().write { db in
            var todo = Todo(text: text, date: date)
            try todo.insert(db)
            return todo
        }
    }

    /// Adds many items in one transaction (an import, a stress test), all
    /// dated now. Either all are added or, if one is refused, none.
    public func add(contentsOf texts: [String]) async throws {
        let validated = try texts.map(Self.validated)
        let date = now().timeIntervalSince1970  // as Todo stores it
        try await database().write { db in
            // One prepared statement for the batch: encoding a record per row
            // costs more than SQLite's own work.
            let insert = try db.cachedStatement(sql: "INSERT INTO todo (text, date) VALUES (?, ?)")
            for text in validated {
                try insert.execute(arguments: [text, date])
            }
        }
    }

    /// Changes an item's text in place: same id, same date, same position.
    ///
    /// - Throws: ``TodoError/emptyText``, or ``TodoError/notFound(id:)``.
    @discardableResult
    public func edit(id: Int64, text: String) async throws -> Todo {
        let text = try Self.validated(text)
        return try await database().write { db in
            guard var todo = try Todo.fetchOne(db, key: id) else { throw TodoError.notFound(id: id) }
            todo.text = text
            try todo.update(db)
            return todo
        }
    }

    /// Deletes an item.
    ///
    /// - Throws: ``TodoError/notFound(id:)`` when there is no such item.
    public func delete(id: Int64) async throws {
        let deleted = try await database().write { db in try Todo.deleteOne(db, key: id) }
        if !deleted { throw TodoError.notFound(id: id) }
    }

    /// Every item, oldest first.
    public func all() async throws -> [Todo] {
        try await database().read { db in try Todo.inListOrder().fetchAll(db) }
    }

    /// The items whose text contains `search` (ignoring the case of ASCII
    /// letters; every item when it is empty), oldest first, now and after
    /// each change by anyone; a live query for ``TodoList``'s `fetching`.
    ///
    /// Ends by throwing `SQLiteDatabaseError.closed` when the database
    /// closes (another member logs in), or ``TodoError/noList`` at once
    /// when none is open.
    public func live(matching search: String = "") -> AsyncThrowingStream<[Todo], any Error> {
        if let fixed { return fixed.live(.all(Todo.matching(search))) }
        let database = self.resolve
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: [Todo].self,
            bufferingPolicy: .bufferingNewest(1)
        )
        // The database is known only once asked for; the query's own
        // stream, iterated here, ends when this one is dropped.
        let task = Task {
            do {
                for try await todos in try await database().live(.all(Todo.matching(search))) {
                    continuation.yield(todos)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    static func validated(_ text: String) throws(TodoError) -> String {
        // Most text needs no trimming: check its ends before asking Foundation,
        // whose trimming costs more than inserting the row.
        let scalars = text.unicodeScalars
        let trimmed: String
        if let first = scalars.first, let last = scalars.last,
            !first.properties.isWhitespace, !last.properties.isWhitespace
        {
            trimmed = text
        } else {
            trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw .emptyText }
        }
        // Counted in UTF-8 bytes first: only a long text pays for counting characters.
        if trimmed.utf8.count > Todo.maximumTextLength, trimmed.count > Todo.maximumTextLength {
            throw .tooLong(maximum: Todo.maximumTextLength)
        }
        return trimmed
    }
}

/// Why a to-do change was refused.
public enum TodoError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyText
    /// The text is longer than ``Todo/maximumTextLength`` characters.
    case tooLong(maximum: Int)
    case notFound(id: Int64)
    /// No member's list is open (no one is logged in).
    case noList

    /// One sentence for the user.
    public var description: String {
        switch self {
        case .emptyText: "A to-do needs some text."
        case let .tooLong(maximum): "A to-do holds at most \(maximum) characters."
        case let .notFound(id): "There is no to-do #\(id)."
        case .noList: "No to-do list is open: log in first."
        }
    }
}
