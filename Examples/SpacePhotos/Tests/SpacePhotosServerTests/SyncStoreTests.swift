import BaselineSync
import Foundation
import GRDB
import Logging
import SpacePhotosTestSupport
import Testing

@testable import SpacePhotosServer

/// ``SQLiteSyncStore`` on real SQLite files in a temporary folder, and
/// ``PostgresSyncStore`` in a schema of its own: merges, idempotent pushes,
/// paging, ownership, and a store reopened after a stop.
@Suite("The sync store (SQLite files, PostgreSQL)", .timeLimit(.minutes(2)))
struct SyncStoreTests {
    /// A folder removed after the test.
    final class Folder {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("sync-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        deinit {
            try? FileManager.default.removeItem(at: url)
        }

        var database: URL { url.appendingPathComponent("sync.sqlite") }
    }

    /// The stores these tests run on: both follow ``SyncStore`` to the letter.
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite
        /// With `BASELINE_POSTGRES_URL` (see ``PostgresTestDatabase``).
        case postgres

        var testDescription: String { rawValue }
    }

    /// Runs `body` with a store of `backend` of its own (a new file, or a new
    /// schema), closed and removed afterwards.
    func withStore(
        _ backend: Backend,
        retention: SyncAppliedRetention = .standard,
        _ body: (any SyncStore) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let folder = try Folder()
            let store = try SQLiteSyncStore(file: folder.database, retention: retention)
            defer { try? store.close() }
            try await body(store)
        case .postgres:
            try await PostgresTestDatabase.withSchema { url, schema in
                try await Self.withRunningStore(url: url, schema: schema, retention: retention, body)
            }
        }
    }

    /// Runs `first` with a store of `backend` of its own, then `second` with
    /// the store opened again on the same file or schema.
    func withStoreTwice(
        _ backend: Backend,
        _ first: (any SyncStore) async throws -> Void,
        then second: (any SyncStore) async throws -> Void
    ) async throws {
        switch backend {
        case .sqlite:
            let folder = try Folder()
            let store = try SQLiteSyncStore(file: folder.database)
            do {
                try await first(store)
            } catch {
                try? store.close()
                throw error
            }
            try store.close()
            let reopened = try SQLiteSyncStore(file: folder.database)
            defer { try? reopened.close() }
            try await second(reopened)
        case .postgres:
            try await PostgresTestDatabase.withSchema { url, schema in
                try await Self.withRunningStore(url: url, schema: schema, first)
                try await Self.withRunningStore(url: url, schema: schema, second)
            }
        }
    }

    /// Opens a ``PostgresSyncStore`` and runs it while `body` does.
    static func withRunningStore(
        url: URL,
        schema: String,
        retention: SyncAppliedRetention = .standard,
        _ body: (PostgresSyncStore) async throws -> Void
    ) async throws {
        let store = try await PostgresSyncStore.open(
            url: url,
            schema: schema,
            logger: PostgresTestDatabase.logger,
            hooks: PostgresSyncStore.ListenerHooks(),
            retention: retention
        )
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await store.run() }
            // A throw cancels the group, which ends run() too.
            try await body(store)
            group.cancelAll()
        }
    }

    static func at(_ milliseconds: UInt64, node: UInt64 = 1) -> HybridTimestamp {
        HybridTimestamp(milliseconds: milliseconds, counter: 0, node: node)
    }

    static func write(
        _ id: String,
        row: String,
        at milliseconds: UInt64,
        node: UInt64 = 1,
        _ fields: [String: SyncValue]
    ) -> SyncChange {
        SyncChange(id: id, table: "todo", row: row, timestamp: at(milliseconds, node: node), fields: fields)
    }

    @Test(arguments: Backend.allCases)
    func twoDevicesEditingDifferentFieldsBothKeepTheirEdit(on backend: Backend) async throws {
        try await withStore(backend) { store in
            let first = try await store.push(
                [Self.write("c1", row: "r", at: 100, ["text": .text("Buy milk"), "date": .real(1)])],
                member: "astro"
            )
            #expect(first == SyncPushResult(applied: ["c1"], cursor: 1))
            // Another device: a later date, and a text older than the stored one.
            let second = try await store.push(
                [
                    Self.write("c2", row: "r", at: 200, node: 2, ["date": .real(2)]),
                    Self.write("c3", row: "r", at: 50, node: 2, ["text": .text("Buy bread")]),
                ],
                member: "astro"
            )
            #expect(second == SyncPushResult(applied: ["c2", "c3"], cursor: 2))

            let page = try await store.pull(member: "astro", after: 0, limit: 10)
            #expect(page.cursor == 2)
            #expect(page.more == false)
            let state = try #require(page.rows.first?.state)
            #expect(page.rows.count == 1)
            #expect(state.fields["text"] == Stamped(.text("Buy milk"), at: Self.at(100)))
            #expect(state.fields["date"] == Stamped(.real(2), at: Self.at(200, node: 2)))
            #expect(state.alive == Stamped(true, at: Self.at(200, node: 2)))

            // A change that loses every register moves nothing: no new seq.
            let stale = try await store.push([Self.write("c4", row: "r", at: 10, ["date": .real(0)])], member: "astro")
            #expect(stale.cursor == 2)
            // A later delete wins over the writes, keeping the fields.
            let delete = SyncChange(id: "c5", table: "todo", row: "r", timestamp: Self.at(300), deleted: true)
            #expect(try await store.push([delete], member: "astro").cursor == 3)
            let deleted = try await store.pull(member: "astro", after: 2, limit: 10)
            #expect(deleted.rows.first?.state.exists == false)
            #expect(deleted.rows.first?.state.fields["text"]?.value == .text("Buy milk"))
        }
    }

    @Test(arguments: Backend.allCases)
    func aChangePushedTwiceIsAppliedOnce(on backend: Backend) async throws {
        try await withStore(backend) { store in
            let change = Self.write("c1", row: "r", at: 100, ["text": .text("a")])
            #expect(try await store.push([change], member: "astro").cursor == 1)
            // Again, and again inside one push: answered as applied, nothing moves.
            #expect(
                try await store.push([change, change], member: "astro") == .init(applied: ["c1", "c1"], cursor: 1)
            )
            // The same id with other content is the same change: skipped too.
            let impostor = Self.write("c1", row: "r", at: 900, ["text": .text("b")])
            #expect(try await store.push([impostor], member: "astro").cursor == 1)
            let page = try await store.pull(member: "astro", after: 0, limit: 10)
            #expect(page.rows.map(\.state.fields["text"]?.value) == [.text("a")])
            #expect(try await store.cursor(member: "astro") == 1)
            // Change ids are per member: Luna's own c1 is hers to apply.
            let lunas = Self.write("c1", row: "l", at: 100, ["text": .text("l")])
            #expect(try await store.push([lunas], member: "luna").cursor == 1)
        }
    }

    /// Change ids are kept for the member's latest changes only; an older
    /// one pushed again is merged again, which changes nothing.
    @Test(arguments: Backend.allCases)
    func changeIdsAreForgottenPastTheRetentionAndNothingIsAppliedTwice(on backend: Backend) async throws {
        let retention = SyncAppliedRetention(changes: 4, interval: 2)
        try await withStore(backend, retention: retention) { store in
            let changes = (0...10).map { Self.write("c\($0)", row: "r\($0)", at: 100, ["text": .text("x")]) }
            for (index, change) in changes.enumerated() {
                #expect(try await store.push([change], member: "astro").cursor == Int64(index + 1))
            }
            // c0 is forgotten, not skipped: the same id with new content applies.
            let impostor = Self.write("c0", row: "r0", at: 900, ["text": .text("b")])
            #expect(try await store.push([impostor], member: "astro").cursor == 12)
            // c1 is forgotten too: pushed again as it was, it merges into
            // what it wrote, and nothing moves.
            #expect(try await store.push([changes[1]], member: "astro").cursor == 12)
            // A recent id is still known, and skipped.
            let recent = Self.write("c10", row: "r10", at: 900, ["text": .text("y")])
            #expect(try await store.push([recent], member: "astro").cursor == 12)
            let rows = try await store.pull(member: "astro", after: 0, limit: 100).rows
            #expect(rows.first { $0.row == "r0" }?.state.fields["text"]?.value == .text("b"))
            #expect(rows.first { $0.row == "r10" }?.state.fields["text"]?.value == .text("x"))
        }
    }

    @Test func theAppliedIdsAreBoundedByTheRetention() async throws {
        let folder = try Folder()
        let retention = SyncAppliedRetention(changes: 50, interval: 10)
        let store = try SQLiteSyncStore(file: folder.database, retention: retention)
        for index in 1...1_000 {
            let change = Self.write("c\(index)", row: "r\(index % 7)", at: UInt64(index), ["text": .text("\(index)")])
            _ = try await store.push([change], member: "astro")
        }
        try store.close()
        let database = try DatabaseQueue(path: folder.database.path)
        let kept = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_applied") }
        #expect(kept.map { $0 <= 60 } == true, "at most the retention and one interval: \(kept ?? -1)")
        #expect(kept.map { $0 >= 50 } == true, "the latest 50 at least: \(kept ?? -1)")
    }

    @Test(arguments: Backend.allCases)
    func pagesFollowEachOtherInSeqOrder(on backend: Backend) async throws {
        try await withStore(backend) { store in
            let changes = (1...5).map { Self.write("c\($0)", row: "r\($0)", at: 100, ["text": .text("\($0)")]) }
            #expect(try await store.push(changes, member: "astro").cursor == 5)
            // r2 changes again: it moves to the end.
            #expect(
                try await store.push([Self.write("c6", row: "r2", at: 200, ["text": .text("2'")])], member: "astro")
                    .cursor == 6
            )

            var cursor: Int64 = 0
            var pages: [[String]] = []
            var more = true
            while more {
                let page = try await store.pull(member: "astro", after: cursor, limit: 2)
                pages.append(page.rows.map(\.row))
                cursor = page.cursor
                more = page.more
            }
            #expect(pages == [["r1", "r3"], ["r4", "r5"], ["r2"]])
            #expect(cursor == 6)
            let empty = try await store.pull(member: "astro", after: 6, limit: 2)
            #expect(empty == SyncPage(rows: [], cursor: 6, more: false))
            // Exactly a page left: no more after it.
            #expect(try await store.pull(member: "astro", after: 4, limit: 2).more == false)
        }
    }

    @Test(arguments: Backend.allCases)
    func aCursorPastTheMembersLatestIsRefused(on backend: Backend) async throws {
        try await withStore(backend) { store in
            await #expect(throws: SyncStoreError.cursorAhead(cursor: 1, latest: 0)) {
                try await store.pull(member: "astro", after: 1, limit: 10)
            }
            _ = try await store.push([Self.write("c1", row: "r", at: 1, ["text": .text("a")])], member: "astro")
            #expect(try await store.pull(member: "astro", after: 1, limit: 10).rows.isEmpty)
            // Cursors are per member: Astro's is ahead of Luna's.
            await #expect(throws: SyncStoreError.cursorAhead(cursor: 1, latest: 0)) {
                try await store.pull(member: "luna", after: 1, limit: 10)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aPushTouchingAnotherMembersRowAppliesNothing(on backend: Backend) async throws {
        try await withStore(backend) { store in
            let astros = Self.write("a1", row: "shared", at: 100, ["text": .text("Astro's")])
            _ = try await store.push([astros], member: "astro")

            let own = Self.write("l1", row: "lunas", at: 200, ["text": .text("Luna's")])
            let intrusion = Self.write("l2", row: "shared", at: 200, ["text": .text("Luna was here")])
            let delete = SyncChange(id: "l3", table: "todo", row: "shared", timestamp: Self.at(300), deleted: true)
            await #expect(throws: SyncStoreError.notYours(["l2", "l3"])) {
                try await store.push([own, intrusion, delete], member: "luna")
            }
            #expect(try await store.cursor(member: "luna") == 0)
            #expect(try await store.pull(member: "luna", after: 0, limit: 10).rows.isEmpty)
            let astrosRows = try await store.pull(member: "astro", after: 0, limit: 10)
            #expect(astrosRows.rows.map(\.state) == [astros.state])
            #expect(astrosRows.cursor == 1)
            // Nothing was marked applied either: her own change goes through alone.
            #expect(try await store.push([own], member: "luna") == .init(applied: ["l1"], cursor: 1))
        }
    }

    @Test func aReopenedStoreKeepsItsRowsCountersAndAppliedChanges() async throws {
        let folder = try Folder()
        let change = Self.write("c1", row: "r", at: 100, ["text": .text("kept")])
        let first = try SQLiteSyncStore(file: folder.database)
        _ = try await first.push([change], member: "astro")
        try first.close()

        let second = try SQLiteSyncStore(file: folder.database)
        defer { try? second.close() }
        #expect(try await second.cursor(member: "astro") == 1)
        #expect(try await second.pull(member: "astro", after: 0, limit: 10).rows.map(\.state) == [change.state])
        // The change is still known as applied.
        #expect(try await second.push([change], member: "astro").cursor == 1)
        #expect(try await second.push([Self.write("c2", row: "r2", at: 1, [:])], member: "astro").cursor == 2)
    }

    @Test(arguments: Backend.allCases)
    func aPushThatChangesRowsIsAnnounced(on backend: Backend) async throws {
        try await withStore(backend) { store in
            var changes = store.cursorChanges().makeAsyncIterator()
            let change = Self.write("c1", row: "r", at: 1, ["text": .text("a")])
            _ = try await store.push([change], member: "astro")
            _ = try await store.push([Self.write("l1", row: "l", at: 1, [:])], member: "luna")
            // PostgreSQL also brings each back through its notification: keep
            // the latest per member, as the live sockets do.
            var latest: [String: Int64] = [:]
            while latest != ["astro": 1, "luna": 1] {
                let next = try #require(await changes.next())
                latest[next.member] = max(latest[next.member] ?? 0, next.cursor)
                #expect(next.cursor == 1)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aPushThatChangesNothingIsNotAnnounced(on backend: Backend) async throws {
        let change = Self.write("c1", row: "r", at: 5, ["text": .text("a")])
        try await withStoreTwice(backend) { store in
            let pushed = try await store.push([change], member: "astro")
            #expect(pushed.cursor == 1)
        } then: { store in
            // Opened after that push, so it announces none of it.
            var changes = store.cursorChanges().makeAsyncIterator()
            // Pushed again, or older than the row: nothing changes...
            #expect(try await store.push([change], member: "astro").cursor == 1)
            let stale = Self.write("c2", row: "r", at: 1, ["text": .text("older")])
            #expect(try await store.push([stale], member: "astro").cursor == 1)
            // ...so the first announcement is that of a push that changes rows.
            _ = try await store.push([Self.write("l1", row: "l", at: 1, [:])], member: "luna")
            #expect(await changes.next() == SyncCursorChange(member: "luna", cursor: 1))
        }
    }

    @Test func aStoreInMemoryWorksTheSame() async throws {
        let store = try SQLiteSyncStore()
        defer { try? store.close() }
        #expect(try await store.cursor(member: "astro") == 0)
        _ = try await store.push([Self.write("c1", row: "r", at: 1, ["text": .text("a")])], member: "astro")
        #expect(
            try await store.pull(member: "astro", after: 0, limit: 1)
                == SyncPage(
                    rows: [SyncRow(table: "todo", row: "r", state: .write(["text": .text("a")], at: Self.at(1)))],
                    cursor: 1,
                    more: false
                )
        )
    }
}

/// ``SyncPushValidator``: what a push is refused for before the store sees it.
@Suite("Sync push validation")
struct SyncPushValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let nowMilliseconds: UInt64 = 1_700_000_000_000

    let validator = SyncPushValidator(
        tables: [SyncedTable("todo", columns: [.text("text", maximumBytes: 10), .real("date")])],
        clockTolerance: .seconds(600),
        now: { SyncPushValidatorTests.now }
    )

    func change(
        _ id: String = "c",
        table: String = "todo",
        at milliseconds: UInt64 = nowMilliseconds,
        _ fields: [String: SyncValue] = ["text": .text("ok")]
    ) -> SyncChange {
        SyncChange(
            id: id,
            table: table,
            row: "r",
            timestamp: HybridTimestamp(milliseconds: milliseconds, counter: 0, node: 1),
            fields: fields
        )
    }

    @Test func aValidPushHasNoFaults() {
        #expect(validator.faults(in: [change(), change("d", ["date": .integer(3)])]).isEmpty)
    }

    @Test func eachFaultyChangeIsNamedWithItsCode() {
        let faults = validator.faults(in: [
            change("a", table: "notes"),
            change("b"),
            change("c", ["text": .text("far too long for ten")]),
            change("d", ["colour": .text("red")]),
            change("e", ["date": .text("today")]),
            change("", ["text": .text("x")]),
            change("g", at: Self.nowMilliseconds + 600_001),
        ])
        #expect(faults.map(\.id) == ["a", "c", "d", "e", "", "g"])
        #expect(
            faults.map(\.code) == [.unknownTable, .tooLarge, .invalidField, .invalidField, .malformed, .clockAhead]
        )
    }

    @Test func theClockMayBeAheadByTheToleranceExactly() {
        #expect(validator.faults(in: [change(at: Self.nowMilliseconds + 600_000)]).isEmpty)
        #expect(validator.faults(in: [change(at: .max)]).map(\.code) == [.clockAhead])
        let strict = SyncPushValidator(tables: [], clockTolerance: .milliseconds(-5), now: { Self.now })
        #expect(strict.latestAcceptedMilliseconds() == Self.nowMilliseconds)
        let lenient = SyncPushValidator(tables: [], clockTolerance: .seconds(Int64.max), now: { Self.now })
        #expect(lenient.latestAcceptedMilliseconds() == .max)
    }

    @Test func theStatusOfARefusalIsItsFirstChangesCode() {
        let tooLarge = SyncRefusal.Change(id: "a", code: .tooLarge, message: "")
        let unknown = SyncRefusal.Change(id: "b", code: .unknownTable, message: "")
        #expect(SyncRefusalError.push(refusing: [tooLarge, unknown]).status == .contentTooLarge)
        #expect(SyncRefusalError.push(refusing: [unknown, tooLarge]).status == .badRequest)
        #expect(SyncRefusalError.push(refusing: [unknown]).refusal.error.code == .unknownTable)
        #expect(SyncRefusalError.status(for: .notYours) == .forbidden)
    }
}

/// ``SyncCursorFeed``: a connection's queue holds the latest cursor only.
@Suite("The live sync cursor feed")
struct SyncCursorFeedTests {
    @Test func aSlowReaderGetsTheLatestCursorOnly() async {
        let feed = SyncCursorFeed()
        let astro = feed.subscribe(member: "astro")
        let luna = feed.subscribe(member: "luna")
        var cursors = astro.cursors.makeAsyncIterator()
        for cursor: Int64 in [1, 2, 3] { feed.publish(cursor, member: "astro") }
        // A late, smaller cursor (a push that finished after a later one) changes nothing.
        feed.publish(2, member: "astro")
        #expect(await cursors.next() == 3)
        feed.publish(4, member: "astro")
        #expect(await cursors.next() == 4)

        // Luna heard none of it.
        feed.publish(1, member: "luna")
        var lunas = luna.cursors.makeAsyncIterator()
        #expect(await lunas.next() == 1)

        #expect(feed.subscriberCount == 2)
        feed.unsubscribe(astro)
        feed.unsubscribe(luna)
        #expect(await cursors.next() == nil)
        #expect(feed.subscriberCount == 0)
    }
}
