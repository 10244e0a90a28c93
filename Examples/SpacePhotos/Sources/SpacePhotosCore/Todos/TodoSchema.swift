import GRDB

/// The to-do database's schema, as an ordered list of migrations.
///
/// Migrations are append-only: a released migration is never edited, a change
/// is a new migration. `DatabaseMigrator` records which ones ran, so a
/// database from any earlier version is brought up to date on open.
public enum TodoSchema {
    /// The migrations, oldest first: v1 creates the `todo` table, v2 indexes it
    /// by date. A new migrator each time; pass it when opening the database.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: todo table") { db in
            try db.create(table: Todo.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("text", .text).notNull()
                table.column("date", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: index todos by date") { db in
            // The list is sorted by date: keep that fast at 10,000 items and beyond.
            try db.create(index: "todo_on_date", on: Todo.databaseTableName, columns: ["date", "id"])
        }
        return migrator
    }
}
