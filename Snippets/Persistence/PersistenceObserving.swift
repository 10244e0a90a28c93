// A list screen's model that shows the notes as they are now and after
// every change, whoever makes it.

// snippet.hide
import BaselineConcurrency
import BaselinePersistence
import Foundation
import GRDB
import Observation

struct Note: Codable, Equatable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

var migrator = DatabaseMigrator()
migrator.registerMigration("v1") { db in
    try db.create(table: "note") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("text", .text).notNull()
    }
}
let database = try await SQLiteDatabase.inMemory(migrator: migrator)

// snippet.show
// snippet.loop
// The current notes at once, then after each commit that changes them.
let watching = Task {
    for try await notes in database.observe({ db in try Note.order(Column("text")).fetchAll(db) }) {
        print(notes.map(\.text))
    }
}
// snippet.end

// snippet.model
@MainActor
@Observable
final class NoteListModel {
    private(set) var notes: [Note] = []
    private(set) var errorMessage: String?
    @ObservationIgnored private var observer: StreamObserver?

    init(database: SQLiteDatabase) {
        // The observer's task holds the sequence, not the model: releasing
        // the model stops the observation. `[weak self]` keeps it that way.
        observer = StreamObserver(
            observing: { database.observe { db in try Note.order(Column("text")).fetchAll(db) } },
            onElement: { [weak self] notes in await self?.show(notes) },
            onError: { [weak self] error in await self?.fail(error) }
        )
        observer?.start()
    }

    private func show(_ notes: [Note]) { self.notes = notes }
    private func fail(_ error: any Error) { errorMessage = "\(error)" }
}
// snippet.end

// snippet.wait
let model = NoteListModel(database: database)
try await database.write { db in
    var note = Note(text: "Water the plants")
    try note.insert(db)
}
// The change arrives on its own: wait for it, no sleeping.
try await waitUntil(model) { $0.notes.count == 1 }
// snippet.end

// snippet.count
// A count, or any Equatable result: consecutive duplicates are dropped.
for try await count in database.observe({ db in try Note.fetchCount(db) }) {
    print("\(count) notes")
    break  // leaving the loop ends the observation
}
// snippet.end

watching.cancel()
// snippet.closing
// Closing the database finishes every observation without an error.
try await database.close()
try await database.waitUntilObservationsEnd()
// snippet.end
