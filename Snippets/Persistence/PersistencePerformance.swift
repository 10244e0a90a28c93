// The database's usual performance pitfalls, each as the slow version and
// the fixed one.

// snippet.hide
import BaselinePersistence
import Foundation
import GRDB

struct Todo: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String
    var date: Date
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

var migrator = DatabaseMigrator()
// snippet.show
// snippet.index
migrator.registerMigration("v1: todos") { db in
    try db.create(table: "todo") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("text", .text).notNull()
        // The list is sorted by date: an index makes the sort a walk.
        table.column("date", .datetime).notNull().indexed()
    }
}
// snippet.end
// snippet.hide
let database = try await SQLiteDatabase.inMemory(migrator: migrator)
let texts = (1...10_000).map { "To-do \($0)" }

// snippet.show
// snippet.slow-transactions
// Slow: one transaction, and one disk sync, per row.
for text in texts {
    try await database.write { db in
        var todo = Todo(text: text, date: Date())
        try todo.insert(db)
    }
}
// snippet.end

// snippet.slow-records
// Better, still slow: one transaction, but a record encoded per row.
try await database.write { db in
    for text in texts {
        var todo = Todo(text: text, date: Date())
        try todo.insert(db)
    }
}
// snippet.end

// snippet.fast
// Fast: one transaction, one prepared statement, only arguments per row.
let date = Date().databaseValue
try await database.write { db in
    let insert = try db.cachedStatement(sql: "INSERT INTO todo (text, date) VALUES (?, ?)")
    for text in texts {
        try insert.execute(arguments: [text, date])
    }
}
// snippet.end

// snippet.observe-narrow
// A badge needs a number: observe the count, not every row.
for try await count in database.observe({ db in try Todo.fetchCount(db) }) {
    print("\(count) to-dos")
    break
}
// snippet.end
