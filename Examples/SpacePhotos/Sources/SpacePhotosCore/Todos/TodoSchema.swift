import GRDB

/// The to-do database's schema, as an ordered list of migrations.
///
/// Migrations are append-only: a released migration is never edited, a change
/// is a new migration. `DatabaseMigrator` records which ones ran, so a
/// database from any earlier version is brought up to date on open.
public enum TodoSchema {
    /// The migrations, oldest first: v1 creates the `todo` table, v2 indexes it
    /// by date, v3 stores dates as seconds since 1970. A new migrator each
    /// time; pass it when opening the database.
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
        migrator.registerMigration("v3: dates as seconds since 1970") { db in
            // Text dates ("2026-11-26 12:30:00.000", UTC) become numbers, which
            // read without a calendar and sort the same.
            try db.execute(
                sql: "UPDATE todo SET date = (julianday(date) - 2440587.5) * 86400.0 WHERE typeof(date) = 'text'"
            )
        }
        return migrator
    }
}
