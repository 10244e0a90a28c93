import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

@Suite("SQLiteDatabase.observe", .timeLimit(.minutes(1)))
struct DatabaseObservationTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase

    init() async throws {
        directory = try TemporaryDirectory()
        database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("db.sqlite"),
            migrator: Note.migrator
        )
    }

    @Test func emitsTheCurrentResultThenEachCommitFromAnyActor() async throws {
        var results = database.observe { db in try Note.order(Column("id")).fetchAll(db).map(\.text) }
            .makeAsyncIterator()
        #expect(try await results.next() == [])

        // A commit from a different task and actor.
        actor Writer {
            func add(_ text: String, to database: SQLiteDatabase) async throws {
                try await database.write { db in
                    var note = Note(text: text)
                    try note.insert(db)
                }
            }
        }
        try await Writer().add("first", to: database)
        #expect(try await results.next() == ["first"])
        try await Writer().add("second", to: database)
        #expect(try await results.next() == ["first", "second"])
    }

    @Test func aRolledBackWriteEmitsNothing() async throws {
        var results = database.observe { db in try Note.fetchCount(db) }.makeAsyncIterator()
        #expect(try await results.next() == 0)
        struct Abort: Error {}
        _ = try? await database.write { db in
            var note = Note(text: "never")
            try note.insert(db)
            throw Abort()
        }
        try await database.write { db in
            var note = Note(text: "kept")
            try note.insert(db)
        }
        // The next value is the committed one; the rolled-back insert never showed.
        #expect(try await results.next() == 1)
    }

    @MainActor
    @Test func valuesArriveOnTheConsumersActor() async throws {
        for try await count in database.observe({ db in try Note.fetchCount(db) }) {
            MainActor.assertIsolated()
            #expect(count == 0)
            break
        }
    }

    @Test func closingTheDatabaseEndsItsObservations() async throws {
        let observation = database.observe { db in try Note.fetchCount(db) }
        var results = observation.makeAsyncIterator()
        #expect(try await results.next() == 0)
        #expect(database.activeObservationCount == 1)
        try await database.close()
        // Whatever was buffered comes out, then the sequence ends.
        while try await results.next() != nil {}
        #expect(database.activeObservationCount == 0)
    }

    @Test func releasingTheDatabaseEndsItsObservations() async throws {
        var database: SQLiteDatabase? = try await SQLiteDatabase.inMemory(migrator: Note.migrator)
        var results = try #require(database).observe { db in try Note.fetchCount(db) }.makeAsyncIterator()
        #expect(try await results.next() == 0)
        database = nil
        while try await results.next() != nil {}
    }

    @Test func stoppingTheIterationStopsTheObservation() async throws {
        let consumer = Task { [database] in
            for try await _ in database.observe({ db in try Note.fetchCount(db) }) {
                break
            }
        }
        try await consumer.value
        // The stream was released when the loop ended: its termination handler
        // ran synchronously as the iterator went away.
        #expect(database.activeObservationCount == 0)
    }

    @Test func waitingForObservationsToEndReturnsWhenTheLastConsumerIsCancelled() async throws {
        try await database.waitUntilObservationsEnd()  // none yet: at once
        let (started, startedSink) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task { [database] in
            for try await _ in database.observe({ db in try Note.fetchCount(db) }) { startedSink.yield() }
        }
        for await _ in started { break }
        #expect(database.activeObservationCount == 1)

        let leakCheck = Task { [database] in try await database.waitUntilObservationsEnd() }
        leakCheck.cancel()
        await #expect(throws: CancellationError.self) { try await leakCheck.value }

        let ended = Task { [database] in try await database.waitUntilObservationsEnd() }
        consumer.cancel()
        try await ended.value
        _ = try? await consumer.value
    }

    @Test func observingAClosedDatabaseEndsAtOnce() async throws {
        try await database.close()
        var results = database.observe { db in try Note.fetchCount(db) }.makeAsyncIterator()
        #expect(try await results.next() == nil)
    }

    @Test func anObservationThatFailsAtOnceLeavesNothingBehind() async throws {
        let counts = database.observe { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing_table") }
        await #expect {
            for try await _ in counts {}
        } throws: { error in
            if case .operationFailed = error as? SQLiteDatabaseError { true } else { false }
        }
        #expect(database.activeObservationCount == 0)
    }
}
