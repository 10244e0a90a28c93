// A child process for BaselinePersistenceTests' durability test.
//
// Usage: PersistenceCrashHelper <database path>
//        PersistenceCrashHelper --loop <database path>
//
// Commits 100 rows, then opens a second write transaction, inserts rows in it,
// prints "IN_TRANSACTION" and waits on standard input inside the transaction,
// until the test kills it (SIGKILL: no cleanup, no rollback by the process).
//
// With --loop it writes transactions of 10,000 rows, one after another, for
// ever, printing "ROWS" after every 1,000 rows and "COMMITTED" after each
// commit, so the test can kill it at a moment of its choosing: in a
// transaction, in a commit, or between two.
//
// For the shared-value tests, another process writing a shared value:
//        PersistenceCrashHelper --shared-file <path> <first> <count>
//            saves the integers first..<first+count to a shared JSON file, in
//            order, as a holder in another process would, then prints "SAVED";
//        PersistenceCrashHelper --shared-row <database path> <name> <value>
//            saves the integer to the shared row `name` of the database.

import BaselineConcurrency
import BaselinePersistence
import Foundation
import GRDB

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 4, arguments[0] == "--shared-file", let first = Int(arguments[2]), let count = Int(arguments[3]) {
    let key = SharedKey<Int>.file(URL(fileURLWithPath: arguments[1]))
    for value in first..<(first + count) { try await key.save?(value) }
    FileHandle.standardOutput.write(Data("SAVED\n".utf8))
    exit(0)
}
if arguments.count == 4, arguments[0] == "--shared-row", let value = Int(arguments[3]) {
    let database = try await SQLiteDatabase.open(at: URL(fileURLWithPath: arguments[1]), migrator: DatabaseMigrator())
    try await SharedKey<Int>.row(arguments[2], in: database).save?(value)
    FileHandle.standardOutput.write(Data("SAVED\n".utf8))
    exit(0)
}
let loops = arguments.first == "--loop"
guard arguments.count == (loops ? 2 : 1), let path = arguments.last else {
    FileHandle.standardError.write(Data("usage: PersistenceCrashHelper [--loop] <database path>\n".utf8))
    exit(2)
}

var migrator = DatabaseMigrator()
migrator.registerMigration("items") { db in
    try db.create(table: "item") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("payload", .text).notNull()
    }
}

let database = try await SQLiteDatabase.open(at: URL(fileURLWithPath: path), migrator: migrator)
if loops {
    while true {
        try await database.write { db in
            for index in 0..<10_000 {
                try db.execute(sql: "INSERT INTO item (payload) VALUES (?)", arguments: ["row \(index)"])
                if index % 1_000 == 999 { FileHandle.standardOutput.write(Data("ROWS\n".utf8)) }
            }
        }
        FileHandle.standardOutput.write(Data("COMMITTED\n".utf8))
    }
}
try await database.write { db in
    for index in 0..<100 {
        try db.execute(sql: "INSERT INTO item (payload) VALUES (?)", arguments: ["committed \(index)"])
    }
}
try await database.write { db in
    for index in 0..<5_000 {
        try db.execute(
            sql: "INSERT INTO item (payload) VALUES (?)",
            arguments: [String(repeating: "uncommitted \(index) ", count: 20)]
        )
    }
    FileHandle.standardOutput.write(Data("IN_TRANSACTION\n".utf8))
    // Block inside the open transaction until killed. (A test helper: blocking
    // this thread is the point.)
    _ = readLine()
}
