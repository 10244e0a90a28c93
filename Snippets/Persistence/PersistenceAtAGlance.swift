// snippet.hide
import BaselinePersistence
import Foundation
import GRDB

// snippet.show
// 1. A record, and the schema as migrations (GRDB's).
struct Todo: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String
    var date: Date
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

var migrator = DatabaseMigrator()
migrator.registerMigration("v1") { db in
    try db.create(table: "todo") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("text", .text).notNull()
        table.column("date", .datetime).notNull()
    }
}

// 2. Open it once, at launch, and pass it to the features that need it.
let applicationSupport = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
let database = try await SQLiteDatabase.open(
    at: applicationSupport.appending(path: "Todos.sqlite"),
    migrator: migrator
)

// 3. Write in a transaction, read from a snapshot: both off the caller's actor.
try await database.write { db in
    var todo = Todo(text: "Buy milk", date: .now)
    try todo.insert(db)
}
let count = try await database.read { db in try Todo.fetchCount(db) }

// 4. Observe: the result now, then after each commit that changes it.
for try await todos in database.observe({ db in try Todo.order(Column("date")).fetchAll(db) }) {
    print(count, todos.map(\.text))
    break
}
