import GRDB

/// The saved photos' schema, as append-only migrations (see ``TodoSchema``).
public enum SavedPhotoSchema {
    /// Every migration, in order: pass it to `SQLiteDatabase.open(at:migrator:)`.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: saved_photo table") { db in
            try db.create(table: SavedPhoto.databaseTableName) { table in
                // One photo a day: the day is the photo's identity.
                table.primaryKey("day", .text)
                table.column("title", .text).notNull()
                table.column("explanation", .text).notNull()
                table.column("url", .text).notNull()
                table.column("mediaType", .text).notNull()
                table.column("image", .blob).notNull()
                table.column("savedAt", .datetime).notNull()
            }
            try db.create(index: "saved_photo_on_savedAt", on: SavedPhoto.databaseTableName, columns: ["savedAt"])
        }
        return migrator
    }
}
