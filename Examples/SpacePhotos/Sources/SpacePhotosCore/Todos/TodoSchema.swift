import BaselineSync
import GRDB

/// The to-do database's schema, as an ordered list of migrations.
///
/// Migrations are append-only: a released migration is never edited, a change
/// is a new migration. `DatabaseMigrator` records which ones ran, so a
/// database from any earlier version is brought up to date on open.
public enum TodoSchema {
    /// The migrations, oldest first: v1 creates the `todo` table, v2 indexes it
    /// by date, v3 stores dates as seconds since 1970, v4 gives every item a
    /// `uuid` that names it on every device; then sync's own (see ``sync``).
    /// A new migrator each time; pass it when opening the database.
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
        migrator.registerMigration("v4: an id for every device") { db in
            // The local integer id stays (the list's selection and "#12"
            // use it); `uuid` names the item across devices. SQLite cannot
            // add a UNIQUE column with a computed default to a table, so the
            // table is rebuilt, keeping ids and rows.
            try db.execute(
                sql: """
                    CREATE TABLE todo_v4 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        uuid TEXT NOT NULL UNIQUE DEFAULT (lower(hex(randomblob(16)))),
                        text TEXT NOT NULL,
                        date DATETIME NOT NULL
                    );
                    INSERT INTO todo_v4 (id, text, date) SELECT id, text, date FROM todo;
                    DROP TABLE todo;
                    ALTER TABLE todo_v4 RENAME TO todo;
                    CREATE INDEX todo_on_date ON todo (date, id);
                    """
            )
        }
        sync.registerMigrations(in: &migrator)
        return migrator
    }

    /// What of the to-do list syncs: each item's text and date, the item
    /// known everywhere by its `uuid`, which the database makes when an
    /// item is inserted.
    public static let sync = SyncSchema([
        SyncedTable(
            Todo.databaseTableName,
            idColumn: "uuid",
            columns: [.text("text", maximumBytes: 4 * Todo.maximumTextLength), .real("date")]
        )
    ])
}
