// A notes app's database: its schema as migrations, opened once at launch,
// with a way out when the file on disk is damaged.

// snippet.hide
import BaselinePersistence
import Foundation
import GRDB

// snippet.show
// snippet.record
struct Note: Codable, Equatable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String
    var date: Date
    var isPinned = false

    // The row id SQLite gives an inserted note.
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
// snippet.end

// snippet.migrator
enum NotesSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Shipped migrations are never edited: users' files already ran them.
        migrator.registerMigration("v1: notes") { db in
            try db.create(table: "note") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("text", .text).notNull()
                table.column("date", .datetime).notNull().indexed()
            }
        }
        // A later release adds a column in a migration of its own.
        migrator.registerMigration("v2: pinned notes") { db in
            try db.alter(table: "note") { table in
                table.add(column: "isPinned", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }
}
// snippet.end

// snippet.open
/// Opens the app's database, moving a damaged file aside rather than
/// failing every launch from now on.
func openNotesDatabase(in directory: URL) async throws -> SQLiteDatabase {
    let url = directory.appending(path: "Notes.sqlite")
    do {
        return try await SQLiteDatabase.open(at: url, migrator: NotesSchema.migrator)
    } catch SQLiteDatabaseError.corrupt {
        // Nothing is deleted: the old file stays next to the new one, for
        // support to look at.
        let kept = try SQLiteDatabase.moveAside(databaseAt: url)
        print("The notes database was damaged; it was kept at \(kept.path)")
        return try await SQLiteDatabase.open(at: url, migrator: NotesSchema.migrator)
    }
}
// snippet.end

// snippet.use
let applicationSupport = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
let database = try await openNotesDatabase(in: applicationSupport)

// A write is one transaction: all of it is committed, or none.
let note = try await database.write { db in
    var note = Note(text: "Call the plumber", date: Date())
    try note.insert(db)
    return note
}

// Reads run beside the writer, on a snapshot of committed data.
let pinned = try await database.read { db in
    try Note.filter(Column("isPinned")).order(Column("date").desc).fetchAll(db)
}
print(note.id ?? 0, pinned.count)

// Closing is optional: the last reference going away closes it too.
try await database.close()
// snippet.end

// snippet.tests
// Tests and previews: the same schema, in memory, gone with the value.
let scratch = try await SQLiteDatabase.inMemory(migrator: NotesSchema.migrator)
// snippet.end
_ = scratch
