import BaselinePersistence
import Foundation
import GRDB

/// A tiny schema for the tests.
struct Note: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("notes") { db in
            try db.create(table: "note") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("text", .text).notNull()
            }
        }
        return migrator
    }
}
