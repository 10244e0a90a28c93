import BaselinePersistence
import BaselineTesting
import Clocks
import Foundation
import GRDB
import Testing

@testable import BaselineSync

/// One device: its own database file and engine, on a shared server.
struct Device {
    let todos: SyncedTodos
    let engine: SyncEngine

    init(
        server: MemorySyncServer,
        configuration: SyncEngine.Configuration = .init(),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws {
        todos = try await SyncedTodos()
        engine = SyncEngine(
            database: todos.database,
            schema: SyncedTodos.schema,
            server: server,
            configuration: configuration,
            clock: clock
        )
    }

    var database: SQLiteDatabase { todos.database }

    func insert(_ id: String, _ text: String) async throws {
        try await database.write { db in
            try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES (?, ?, 1)", arguments: [id, text])
        }
    }

    func edit(_ id: String, _ text: String) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE todo SET text = ? WHERE id = ?", arguments: [text, id])
        }
    }

    func delete(_ id: String) async throws {
        try await database.write { db in try db.execute(sql: "DELETE FROM todo WHERE id = ?", arguments: [id]) }
    }

    func rows() async throws -> [String: String] { try await todos.rows() }

    /// Moves this device's clock a second past `other`'s: its next change
    /// happens later, not within the same millisecond, where the order of
    /// two devices' changes is the clock's choice.
    func moveClock(pastThatOf other: Device) async throws {
        let theirs =
            try await other.database.read { db in try Int64.fetchOne(db, sql: "SELECT ms FROM _sync_clock") } ?? 0
        try await database.write { db in
            try db.execute(sql: "UPDATE _sync_clock SET ms = max(ms, ?), counter = 0", arguments: [theirs + 1_000])
        }
    }
}

@Suite("SyncEngine: push, pull, conflicts and failures")
struct SyncEngineTests {
    let server = MemorySyncServer(schema: SyncedTodos.schema)

    @Test func aRowWrittenOnOneDeviceReachesAnother() async throws {
        let a = try await Device(server: server)
        let b = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        #expect(try await b.rows() == ["milk": "Buy milk"])
        // B's own pull wrote through its tables without recording changes.
        #expect(try await b.todos.outbox().isEmpty)
    }

    @Test func anEditOnOneDeviceAndADeleteOnAnotherEndWithTheLaterIntent() async throws {
        let a = try await Device(server: server)
        let b = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()

        // Offline, both: A deletes, then B edits, later.
        try await a.delete("milk")
        try await b.moveClock(pastThatOf: a)
        try await b.edit("milk", "Buy oat milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        try await a.engine.syncOnce()
        #expect(try await a.rows() == ["milk": "Buy oat milk"])
        #expect(try await b.rows() == ["milk": "Buy oat milk"])

        // And the other way round: an edit, then a later delete.
        try await a.edit("milk", "Buy soy milk")
        try await b.moveClock(pastThatOf: a)
        try await b.delete("milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        try await a.engine.syncOnce()
        #expect(try await a.rows().isEmpty)
        #expect(try await b.rows().isEmpty)
    }

    @Test func deleteThenInsertAgainWithTheSameIDKeepsTheRow() async throws {
        let a = try await Device(server: server)
        let b = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        try await a.delete("milk")
        try await a.insert("milk", "Buy milk again")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        #expect(try await b.rows() == ["milk": "Buy milk again"])
    }

    @Test func aPushWhoseAnswerIsLostIsPushedAgainAndAppliedOnce() async throws {
        let a = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        server.losesAnswers = true
        await #expect(throws: MemorySyncServer.Unreachable.self) { try await a.engine.syncOnce() }
        #expect(try await a.todos.outbox().count == 1)
        server.losesAnswers = false
        try await a.engine.syncOnce()
        #expect(try await a.todos.outbox().isEmpty)
        #expect(server.pushCount == 2)
        #expect(server.appliedIDs.count == 1)
        #expect(server.liveRows == ["todo/milk": ["text": .text("Buy milk"), "date": .real(1), "tag": .null]])
    }

    @Test func aRefusedChangeIsSetAsideReportedAndNotRetriedWhileTheRestSyncs() async throws {
        let table = SyncedTable(
            "todo",
            columns: [.text("text", maximumBytes: 10), .real("date"), .blob("tag", isNullable: true)]
        )
        let strict = MemorySyncServer(schema: SyncSchema([table]))
        let a = try await Device(server: strict)
        try await a.insert("long", String(repeating: "x", count: 11))
        try await a.insert("short", "ok")
        try await a.engine.syncOnce()
        #expect(strict.liveRows.keys.sorted() == ["todo/short"])
        let refused = try await a.engine.refusedChanges()
        #expect(refused.map(\.change.row) == ["long"])
        #expect(refused.map(\.code) == [.tooLarge])

        let pushes = strict.pushCount
        try await a.engine.syncOnce()
        #expect(strict.pushCount == pushes)
        // The row stays on the device that wrote it.
        #expect(try await a.rows() == ["long": String(repeating: "x", count: 11), "short": "ok"])
    }

    @Test func aCursorTheServerNeverGaveStartsThePullOver() async throws {
        let a = try await Device(server: server)
        let b = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        // The server loses its data; B's cursor is now ahead of it.
        server.reset()
        try await b.engine.syncOnce()
        try await a.insert("bread", "Buy bread")
        try await a.engine.syncOnce()
        try await b.engine.syncOnce()
        #expect(try await b.rows() == ["milk": "Buy milk", "bread": "Buy bread"])
        #expect(try await b.database.read { db in try LocalReplica.cursor(db) } == 1)
    }

    @Test func pagesAreAppliedOneAtATimeUntilTheServerHasNoMore() async throws {
        var configuration = SyncEngine.Configuration()
        configuration.pullLimit = 7
        configuration.pushLimit = 9
        let a = try await Device(server: server, configuration: configuration)
        try await a.database.write { db in
            for index in 0..<50 {
                try db.execute(sql: "INSERT INTO todo (id, text, date) VALUES (?, 'x', 1)", arguments: ["\(index)"])
            }
        }
        try await a.engine.syncOnce()
        #expect(server.pushCount == 6)
        let b = try await SyncedTodos()
        let engine = SyncEngine(
            database: b.database,
            schema: SyncedTodos.schema,
            server: server,
            configuration: configuration
        )
        try await engine.syncOnce()
        #expect(try await b.rows().count == 50)
    }

    @Test func aRemoteChangeReachesALiveQueryThroughTheChannel() async throws {
        let a = try await Device(server: server)
        let b = try await Device(server: server)
        let running = Task { try await b.engine.run() }
        defer { running.cancel() }

        // Wait until B is live and idle, on its status stream.
        for await status in b.engine.statuses where status.isLive && status.activity == .idle { break }

        var texts = b.database.observe { db in try String.fetchAll(db, sql: "SELECT text FROM todo") }
            .makeAsyncIterator()
        #expect(try await texts.next() == [])
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        #expect(try await texts.next() == ["Buy milk"])
    }

    @Test func whenTheServerIsUnreachableTheStatusSaysOfflineAndLocalWritesWait() async throws {
        let clock = TestClock()
        let a = try await Device(server: server, clock: clock)
        server.isReachable = false
        let running = Task { try await a.engine.run() }
        defer { running.cancel() }

        for await status in a.engine.statuses {
            if case .offline(retryIn: .seconds(1)) = status.activity { break }
        }
        try await a.insert("milk", "Buy milk")
        for await status in a.engine.statuses where status.pendingChanges == 1 { break }
        #expect(server.liveRows.isEmpty)

        server.isReachable = true
        a.engine.syncNow()
        for await status in a.engine.statuses where status.activity == .idle && status.pendingChanges == 0 { break }
        #expect(server.liveRows.keys.sorted() == ["todo/milk"])
    }

    @Test func aDatabaseSyncsOnlyForTheAccountItFirstSyncedFor() async throws {
        let a = try await Device(server: server)
        try await a.insert("milk", "Buy milk")
        try await a.engine.syncOnce()
        #expect(try await a.engine.account() == nil, "without an account nothing is bound")

        try await a.insert("eggs", "Buy eggs")
        try await a.engine.syncOnce(account: "luna")
        #expect(try await a.engine.account() == "luna")
        try await a.insert("bread", "Buy bread")  // luna's, not sent yet

        // Someone else logs in on the device: luna's change stays put.
        let refusal = SyncError.otherAccount(bound: "luna", asked: "astro")
        await #expect(throws: refusal) { try await a.engine.syncOnce(account: "astro") }
        #expect(a.engine.status.activity == .stopped(refusal.description))
        #expect(refusal.description.contains("luna") && refusal.description.contains("astro"))
        await #expect(throws: refusal) { try await a.engine.run(account: "astro") }
        #expect(server.liveRows.keys.sorted() == ["todo/eggs", "todo/milk"])
        let waiting = try await a.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM _sync_outbox") }
        #expect(waiting == 1)

        // luna again: the change goes out.
        try await a.engine.syncOnce(account: "luna")
        #expect(server.liveRows.keys.sorted() == ["todo/bread", "todo/eggs", "todo/milk"])
    }

    @Test func runEndsWithCancellationError() async throws {
        let a = try await Device(server: server)
        let running = Task { try await a.engine.run() }
        for await status in a.engine.statuses where status.activity == .idle { break }
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
    }
}
