import BaselineConcurrency
import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

/// Live queries on a real database file: results, query changes, failures
/// and lifetimes.
@MainActor
@Suite("LiveQuery and SQLiteDatabase.live", .timeLimit(.minutes(1)))
struct LiveQueryTests {
    let directory: TemporaryDirectory
    let url: URL
    let database: SQLiteDatabase

    init() async throws {
        directory = try TemporaryDirectory()
        url = directory.url.appendingPathComponent("db.sqlite")
        database = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
    }

    func add(_ texts: String...) async throws {
        try await database.write { db in
            for text in texts {
                var note = Note(text: text)
                try note.insert(db)
            }
        }
    }

    static let byID = Note.order(Column("id"))

    @Test func itShowsTheResultAndFollowsEveryCommit() async throws {
        try await add("first")
        let notes = LiveQuery(database, .all(Self.byID))
        #expect(notes.value == [])  // the placeholder, until the read is done
        #expect(notes.isLoading)
        try await waitUntil(notes) { !$0.isLoading }
        #expect(notes.value.map(\.text) == ["first"])
        #expect(notes.loadError == nil)

        let database = self.database
        try await Task.detached {
            try await database.write { db in
                var note = Note(text: "second")
                try note.insert(db)
            }
        }.value
        try await waitUntil(notes) { $0.value.count == 2 }
        #expect(notes.value.map(\.text) == ["first", "second"])
    }

    @Test func countsSingleRowsAndSections() async throws {
        try await add("apple", "avocado", "banana", "blueberry", "cherry")
        let count = LiveQuery(database, .count(Note.filter(Column("text").like("b%"))))
        let one = LiveQuery(database, .one(Note.filter(Column("text") == "cherry")))
        let sections = LiveQuery(
            database,
            .sectioned(Note.order(Column("text")), by: { $0.text.prefix(1) == "a" ? "a" : "other" })
        )
        try await waitUntil(count) { !$0.isLoading }
        try await waitUntil(one) { !$0.isLoading }
        try await waitUntil(sections) { !$0.isLoading }
        #expect(count.value == 2)
        #expect(one.value?.text == "cherry")
        #expect(sections.value.map(\.key) == ["a", "other"])
        #expect(
            sections.value.map { $0.elements.map(\.text) } == [
                ["apple", "avocado"], ["banana", "blueberry", "cherry"],
            ]
        )

        try await add("beetroot")
        try await waitUntil(count) { $0.value == 3 }
        try await database.write { db in _ = try Note.filter(Column("text") == "cherry").deleteAll(db) }
        try await waitUntil(one) { $0.value == nil }
    }

    @Test func aNewQueryReplacesTheOldAndNoOlderResultArrivesAfterIt() async throws {
        try await add("apple", "banana")
        // The first query's read is held until the second has delivered.
        let gate = Gate()
        let slow = DatabaseQuery(placeholder: [String]()) { db in
            gate.waitUntilOpen()
            return try String.fetchAll(db, sql: "SELECT 'stale'")
        }
        let notes = LiveQuery(database, slow)
        notes.load(DatabaseQuery.all(Self.byID.filter(Column("text") == "banana")).map { $0.map(\.text) })
        #expect(notes.isLoading)
        try await waitUntil(notes) { $0.value == ["banana"] && !$0.isLoading }

        gate.open()
        try await add("blackberry")  // a commit after the stale read was released
        try await database.write { db in
            try db.execute(sql: "UPDATE note SET text = 'banana' WHERE text = 'blackberry'")
        }
        try await waitUntil(notes) { $0.value == ["banana", "banana"] }
        notes.cancel()
        try await database.waitUntilObservationsEnd()
        #expect(notes.value == ["banana", "banana"])
    }

    @Test func aFailedQueryShowsItsErrorAndKeepsTheLastGoodValue() async throws {
        try await add("fine")
        let failing = LockedValue(false)
        struct Refused: Error, Equatable {}
        let notes = LiveQuery(
            database,
            DatabaseQuery(placeholder: [Note]()) { db in
                if failing.withLock({ $0 }) { throw Refused() }
                return try Note.order(Column("id")).fetchAll(db)
            }
        )
        try await waitUntil(notes) { !$0.isLoading }
        failing.withLock { $0 = true }
        try await add("breaks it")
        try await waitUntil(notes) { $0.loadError != nil }
        #expect(notes.loadError as? Refused == Refused())
        #expect(notes.value.map(\.text) == ["fine"])
        #expect(!notes.isLoading)

        // Following has stopped; reloading starts again.
        failing.withLock { $0 = false }
        try await database.waitUntilObservationsEnd()
        notes.reload()
        try await waitUntil(notes) { $0.value.count == 2 }
        #expect(notes.loadError == nil)
    }

    @Test func closingTheDatabaseShowsAnErrorAndKeepsTheValue() async throws {
        try await add("kept")
        let notes = LiveQuery(database, .all(Self.byID))
        try await waitUntil(notes) { !$0.isLoading }
        try await database.close()
        try await waitUntil(notes) { $0.loadError != nil }
        #expect(notes.loadError as? SQLiteDatabaseError == .closed)
        #expect(notes.value.map(\.text) == ["kept"])

        // A query made on a closed database says so at once.
        let late = LiveQuery(database, .count(Note.all()))
        try await waitUntil(late) { $0.loadError != nil }
        #expect(late.loadError as? SQLiteDatabaseError == .closed)
    }

    @Test func deletingTheFileUnderAQueryDoesNotCrashIt() async throws {
        try await add("before")
        let notes = LiveQuery(database, .all(Self.byID))
        try await waitUntil(notes) { !$0.isLoading }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        // The open connections keep the unlinked file: writes go on, or fail
        // with an error the query shows. Either way, nothing crashes.
        do {
            try await add("after")
            try await waitUntil(notes) { $0.value.count == 2 || $0.loadError != nil }
        } catch {
            #expect(error is SQLiteDatabaseError)
        }
        try await database.close()
        try await waitUntil(notes) { $0.loadError != nil }
    }

    @Test func releasingItEndsItsObservation() async throws {
        var notes: LiveQuery<[Note]>? = LiveQuery(database, .all(Self.byID))
        try await waitUntil(notes!) { !$0.isLoading }
        #expect(database.activeObservationCount == 1)
        notes = nil
        // Hangs (and fails at the time limit) if the observation outlived it.
        try await database.waitUntilObservationsEnd()
    }

    @Test func aModelOwningLiveQueriesTakesThemWithIt() async throws {
        @MainActor final class Model {
            let all: LiveQuery<[Note]>
            let count: LiveQuery<Int>
            init(database: SQLiteDatabase) {
                all = LiveQuery(database, .all(LiveQueryTests.byID))
                count = LiveQuery(database, .count(Note.all()))
            }
        }
        var model: Model? = Model(database: database)
        try await waitUntil(model!.all) { !$0.isLoading }
        try await waitUntil(model!.count) { !$0.isLoading }
        #expect(database.activeObservationCount == 2)
        model = nil
        try await database.waitUntilObservationsEnd()
    }

    @Test func theSequenceEndsWithClosedWhenTheDatabaseCloses() async throws {
        var results = database.live(.count(Note.all())).makeAsyncIterator()
        #expect(try await results.next() == 0)
        try await database.close()
        do {
            let result = try await results.next()
            Issue.record("expected the sequence to throw, got \(String(describing: result))")
        } catch {
            #expect(error as? SQLiteDatabaseError == .closed)
        }
    }

    @Test func anUnchangedResultIsDeliveredOnce() async throws {
        try await add("one")
        var results = database.live(.count(Note.all())).makeAsyncIterator()
        #expect(try await results.next() == 1)
        // Touches the table, leaves the count as it was: nothing is delivered.
        try await database.write { db in try db.execute(sql: "UPDATE note SET text = 'uno'") }
        try await add("two")
        #expect(try await results.next() == 2)
    }
}

/// A gate a database read waits at (on GRDB's reader queue, not on a task)
/// until the test opens it.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let isOpen = LockedValue(false)

    func open() {
        let wasOpen = isOpen.withLock { open in
            defer { open = true }
            return open
        }
        if !wasOpen { semaphore.signal() }
    }

    func waitUntilOpen() {
        if isOpen.withLock({ $0 }) { return }
        semaphore.wait()
        semaphore.signal()  // let later readers through
    }
}
