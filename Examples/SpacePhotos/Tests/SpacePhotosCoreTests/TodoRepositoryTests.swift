import BaselineConcurrency
import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import SpacePhotosCore
import Testing

@Suite("TodoRepository", .timeLimit(.minutes(2)))
struct TodoRepositoryTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase
    let repository: TodoRepository
    let clock = TickingDate()

    init() async throws {
        directory = try TemporaryDirectory()
        database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("todos.sqlite"),
            migrator: TodoSchema.migrator
        )
        let clock = self.clock
        repository = TodoRepository(database: database, now: { clock.next() })
    }

    @Test func addsListsEditsAndDeletes() async throws {
        let milk = try await repository.add("  Buy milk ")
        let bread = try await repository.add("Buy bread")
        #expect(milk.text == "Buy milk")
        #expect(try await repository.all().map(\.text) == ["Buy milk", "Buy bread"])

        let edited = try await repository.edit(id: try #require(milk.id), text: "Buy oat milk")
        #expect(edited.id == milk.id)
        #expect(edited.date == milk.date)
        #expect(try await repository.all() == [edited, bread])  // same place in the list

        try await repository.delete(id: try #require(bread.id))
        #expect(try await repository.all() == [edited])
    }

    @Test(arguments: ["", "   ", "\n\t "])
    func emptyTextIsRefused(text: String) async throws {
        await #expect(throws: TodoError.emptyText) { try await repository.add(text) }
        let item = try await repository.add("real")
        await #expect(throws: TodoError.emptyText) { try await repository.edit(id: try #require(item.id), text: text) }
        #expect(try await repository.all().map(\.text) == ["real"])
    }

    @Test func missingItemsAreReported() async throws {
        await #expect(throws: TodoError.notFound(id: 42)) { try await repository.edit(id: 42, text: "x") }
        await #expect(throws: TodoError.notFound(id: 42)) { try await repository.delete(id: 42) }
    }

    @Test func theListIsSortedByDate() async throws {
        try await database.write { db in
            var late = Todo(text: "late", date: Date(timeIntervalSince1970: 300))
            var early = Todo(text: "early", date: Date(timeIntervalSince1970: 100))
            var middle = Todo(text: "middle", date: Date(timeIntervalSince1970: 200))
            try late.insert(db)
            try early.insert(db)
            try middle.insert(db)
        }
        #expect(try await repository.all().map(\.text) == ["early", "middle", "late"])
    }

    @Test func theLiveListFollowsWritesFromOtherActors() async throws {
        var lists = repository.live().makeAsyncIterator()
        #expect(try await lists.next() == [])
        let repository = self.repository
        _ = try await Task.detached { try await repository.add("from elsewhere") }.value
        #expect(try await lists.next()?.map(\.text) == ["from elsewhere"])
    }

    @Test(arguments: [
        // (search, the texts it lists)
        ("", ["50% off", "5 off", "snake_case", "snakeXcase", #"C:\Temp"#, "Été"]),
        ("%", ["50% off"]),  // a LIKE wildcard, here a plain character
        ("0%", ["50% off"]),
        ("_", ["snake_case"]),  // another
        ("E_C", ["snake_case"]),  // ASCII letters in either case
        ("SNAKE", ["snake_case", "snakeXcase"]),
        (#"\"#, [#"C:\Temp"#]),  // the usual escape character, plain too
        ("été", []),  // SQLite folds ASCII letters only
        ("Été", ["Été"]),
        ("nothing", []),
    ])
    func aSearchMatchesItsTextAsTyped(search: String, listed: [String]) async throws {
        try await repository.add(contentsOf: ["50% off", "5 off", "snake_case", "snakeXcase", #"C:\Temp"#, "Été"])
        var lists = repository.live(matching: search).makeAsyncIterator()
        #expect(try await lists.next()?.map(\.text) == listed)
    }

    @Test func aDatabaseFromTheFirstSchemaIsMigrated() async throws {
        let url = directory.url.appendingPathComponent("old.sqlite")
        // Build a version-1 database, as the first release shipped it: dates as text.
        let old = try DatabaseQueue(path: url.path)
        try TodoSchema.migrator.migrate(old, upTo: "v1: todo table")
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_764_160_200.125)]
        try await old.write { db in
            for (index, date) in dates.enumerated() {
                try db.execute(
                    sql: "INSERT INTO todo (text, date) VALUES (?, ?)",
                    arguments: ["from v1 #\(index)", date]
                )
            }
            #expect(try String.fetchOne(db, sql: "SELECT typeof(date) FROM todo") == "text")
        }
        try old.close()

        let upgraded = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
        let (todos, types, indexes, applied, uuids, outbox) = try await upgraded.read { db in
            (
                try Todo.order(Todo.Columns.date, Todo.Columns.id).fetchAll(db),
                try String.fetchAll(db, sql: "SELECT DISTINCT typeof(date) FROM todo"),
                try db.indexes(on: "todo").map(\.name),
                try TodoSchema.migrator.appliedIdentifiers(db),
                try String.fetchAll(db, sql: "SELECT uuid FROM todo"),
                try String.fetchAll(db, sql: "SELECT row_id FROM _sync_outbox")
            )
        }
        #expect(todos.map(\.text) == ["from v1 #0", "from v1 #1"])
        // The same instants, to the millisecond the text kept.
        for (todo, date) in zip(todos, dates) {
            #expect(abs(todo.date.timeIntervalSince(date)) < 0.001)
        }
        #expect(
            Set(types).isSubset(of: ["integer", "real"]),
            "numbers (the column's affinity keeps a whole one as an integer)"
        )
        #expect(indexes.contains("todo_on_date"))
        #expect(
            applied.isSuperset(of: [
                "v1: todo table", "v2: index todos by date", "v3: dates as seconds since 1970",
                "v4: an id for every device",
            ])
        )
        #expect(todos.map(\.id) == [1, 2], "the local ids stay")
        // Every item has its own id for the other devices, and is on its way to them.
        #expect(Set(uuids).count == 2 && uuids.allSatisfy { $0.utf8.count == 32 })
        #expect(Set(outbox) == Set(uuids))
    }
}

/// A clock that moves one second per reading, so items get distinct, ordered dates.
final class TickingDate: Sendable {
    private let seconds = LockedValue(0)
    func next() -> Date {
        let tick = seconds.withLock { seconds -> Int in
            seconds += 1
            return seconds
        }
        return Date(timeIntervalSince1970: 1_700_000_000 + Double(tick))
    }
}
