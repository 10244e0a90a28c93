// A child process for BaselinePersistenceTests' durability test.
//
// Usage: PersistenceCrashHelper <database path>
//
// Commits 100 rows, then opens a second write transaction, inserts rows in it,
// prints "IN_TRANSACTION" and waits on standard input inside the transaction,
// until the test kills it (SIGKILL: no cleanup, no rollback by the process).

import BaselinePersistence
import Foundation
import GRDB

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: PersistenceCrashHelper <database path>\n".utf8))
    exit(2)
}

var migrator = DatabaseMigrator()
migrator.registerMigration("items") { db in
    try db.create(table: "item") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("payload", .text).notNull()
    }
}

let database = try await SQLiteDatabase.open(at: URL(fileURLWithPath: CommandLine.arguments[1]), migrator: migrator)
try await database.write { db in
    for index in 0..<100 {
        try db.execute(sql: "INSERT INTO item (payload) VALUES (?)", arguments: ["committed \(index)"])
    }
}
try await database.write { db in
    for index in 0..<5_000 {
        try db.execute(sql: "INSERT INTO item (payload) VALUES (?)", arguments: [String(repeating: "uncommitted \(index) ", count: 20)])
    }
    FileHandle.standardOutput.write(Data("IN_TRANSACTION\n".utf8))
    // Block inside the open transaction until killed. (A test helper: blocking
    // this thread is the point.)
    _ = readLine()
}
