import BaselineSync
import Foundation
import Logging
import PostgresNIO
import SpacePhotosTestSupport
import Testing

@testable import SpacePhotosServer

/// ``PostgresSyncStore`` alone: two stores on one database hear each other's
/// pushes, and a store stopped at any point of its start returns at once.
@Suite(
    "The sync store on PostgreSQL",
    .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.skipMessage),
    .timeLimit(.minutes(2))
)
struct PostgresSyncStoreTests {
    static func write(_ id: String, row: String) -> SyncChange {
        SyncChange(
            id: id,
            table: "todo",
            row: row,
            timestamp: HybridTimestamp(milliseconds: 1, counter: 0, node: 1),
            fields: ["text": .text(id)]
        )
    }

    @Test func aStoreHearsThePushesOfAnotherOnTheSameDatabase() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            try await SyncStoreTests.withRunningStore(url: url, schema: schema) { first in
                try await SyncStoreTests.withRunningStore(url: url, schema: schema) { second in
                    await second.listening()
                    var heard = second.cursorChanges().makeAsyncIterator()
                    _ = try await first.push([Self.write("c1", row: "r1")], member: "astro")
                    #expect(await heard.next() == SyncCursorChange(member: "astro", cursor: 1))
                    // A member name with the separator in it survives the payload.
                    _ = try await first.push([Self.write("c2", row: "r2")], member: "a:b")
                    #expect(await heard.next() == SyncCursorChange(member: "a:b", cursor: 1))
                }
            }
        }
    }

    @Test func aStoreCancelledAtAnyPointOfItsStartReturns() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            for yields in 0..<20 {
                let store = try await PostgresSyncStore.open(
                    url: url,
                    schema: schema,
                    logger: PostgresTestDatabase.logger
                )
                let running = Task { await store.run() }
                for _ in 0..<yields { await Task.yield() }
                running.cancel()
                await running.value
                // Nobody waits for a listener that will never come.
                await store.listening()
                // Queries fail rather than wait for a client that stopped.
                await #expect(throws: PostgresSyncStoreError.stopped) { try await store.cursor(member: "astro") }
                await #expect(throws: PostgresSyncStoreError.stopped) {
                    try await store.push([Self.write("c1", row: "r1")], member: "astro")
                }
            }
        }
    }

    @Test func twoStoresOpeningAtOnceMakeTheTablesOnce() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        _ = try await PostgresSyncStore.open(
                            url: url,
                            schema: schema,
                            logger: PostgresTestDatabase.logger
                        )
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func aBadSchemaOrURLIsRefusedBeforeConnecting() async throws {
        let url = try #require(URL(string: "postgres://u@127.0.0.1:1/db"))
        await #expect(throws: PostgresSyncStoreError.invalidSchema("Drop Table")) {
            _ = try await PostgresSyncStore.open(url: url, schema: "Drop Table", logger: PostgresTestDatabase.logger)
        }
        let http = try #require(URL(string: "http://u@127.0.0.1/db"))
        await #expect(throws: PostgresSyncStoreError.invalidURL("http://u@127.0.0.1/db")) {
            _ = try await PostgresSyncStore.open(url: http, logger: PostgresTestDatabase.logger)
        }
    }

    // MARK: - Setting up

    @Test func aStoreFindsItsTablesWithoutWaitingForLocksOnThem() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            _ = try await PostgresSyncStore.open(url: url, schema: schema, logger: PostgresTestDatabase.logger)
            try await PostgresTestDatabase.withConnection(to: url) { holder in
                // A migration in progress: it holds the rows' table, which a
                // second "CREATE INDEX IF NOT EXISTS" would wait for.
                try await holder.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await holder.query(
                    "LOCK TABLE \(unescaped: "\"\(schema)\"").sync_row IN ACCESS EXCLUSIVE MODE",
                    logger: PostgresTestDatabase.logger
                )
                _ = try await PostgresSyncStore.open(url: url, schema: schema, logger: PostgresTestDatabase.logger)
                try await holder.query("ROLLBACK", logger: PostgresTestDatabase.logger)
            }
        }
    }

    @Test func aSetUpThatCannotTakeALockFailsWithinItsTimeout() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            try await PostgresTestDatabase.withConnection(to: url) { holder in
                // Another session making the schema, not yet committed: the
                // set-up's own CREATE SCHEMA waits for it.
                try await holder.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await holder.query(
                    "CREATE SCHEMA \(unescaped: "\"\(schema)\"")",
                    logger: PostgresTestDatabase.logger
                )
                await #expect {
                    _ = try await PostgresSyncStore.open(url: url, schema: schema, logger: PostgresTestDatabase.logger)
                } throws: { error in
                    guard case .setupFailed(_, let reason) = error as? PostgresSyncStoreError else { return false }
                    return reason.contains("lock timeout")
                }
                try await holder.query("ROLLBACK", logger: PostgresTestDatabase.logger)
            }
        }
    }

    // MARK: - Cancellation

    /// What `body` throws in a task cancelled before it starts; nil if nothing.
    static func errorWhenCancelled(_ body: @escaping @Sendable () async throws -> Void) async -> (any Error)? {
        await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await body()
                return nil
            } catch {
                return error
            }
        }
        .value
    }

    @Test func anOpenCancelledBeforeItStartsThrowsCancellation() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            let error = await Self.errorWhenCancelled {
                _ = try await PostgresSyncStore.open(url: url, schema: schema, logger: PostgresTestDatabase.logger)
            }
            #expect(error is CancellationError)
        }
    }

    @Test func callsFromACancelledTaskThrowCancellationAndChangeNothing() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            try await SyncStoreTests.withRunningStore(url: url, schema: schema) { store in
                // A connection is open and idle: the calls could go through.
                let before = try await store.cursor(member: "astro")
                #expect(before == 0)
                let push = await Self.errorWhenCancelled {
                    _ = try await store.push([Self.write("c1", row: "r1")], member: "astro")
                }
                #expect(push is CancellationError)
                let pull = await Self.errorWhenCancelled {
                    _ = try await store.pull(member: "astro", after: 0, limit: 10)
                }
                #expect(pull is CancellationError)
                let cursor = await Self.errorWhenCancelled { _ = try await store.cursor(member: "astro") }
                #expect(cursor is CancellationError)
                let after = try await store.cursor(member: "astro")
                #expect(after == 0)
            }
        }
    }

    // MARK: - Reconnecting

    @Test func aPushMadeWhileTheListenerReconnectsStillArrives() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            // What the listener of the store under test reports, and the
            // gate it waits at before listening again.
            let (events, eventSink) = AsyncStream.makeStream(of: ListenerEvent.self)
            let (gate, gateSink) = AsyncStream.makeStream(of: Void.self)
            var hooks = PostgresSyncStore.ListenerHooks()
            hooks.beforeListening = { attempt in
                guard attempt == 1 else { return }
                eventSink.yield(.reconnecting)
                for await _ in gate { break }
            }
            hooks.listening = { attempt, connection in
                let pid = try await connection.query("SELECT pg_backend_pid()", logger: PostgresTestDatabase.logger)
                    .decode(Int32.self)
                    .first { _ in true }
                eventSink.yield(.listening(attempt: attempt, pid: pid ?? 0))
            }
            let listening = try await PostgresSyncStore.open(
                url: url,
                schema: schema,
                logger: PostgresTestDatabase.logger,
                hooks: hooks
            )
            try await SyncStoreTests.withRunningStore(url: url, schema: schema) { pusher in
                var changes = listening.cursorChanges().makeAsyncIterator()
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { await listening.run(watching: { ["astro"] }) }
                    var heard = events.makeAsyncIterator()
                    guard case .listening(0, let pid) = await heard.next() else {
                        Issue.record("The store never listened")
                        return
                    }
                    try await PostgresTestDatabase.withConnection(to: url) { connection in
                        try await connection.query(
                            "SELECT pg_terminate_backend(\(pid))",
                            logger: PostgresTestDatabase.logger
                        )
                    }
                    #expect(await heard.next() == .reconnecting)
                    // Nobody listens in this store: the push's notification is lost.
                    _ = try await pusher.push([Self.write("c1", row: "r1")], member: "astro")
                    gateSink.yield()
                    guard case .listening(1, _) = await heard.next() else {
                        Issue.record("The store never listened again")
                        return
                    }
                    // Heard by the new listener, after whatever it read on reconnecting.
                    _ = try await pusher.push([Self.write("l1", row: "l1")], member: "luna")
                    #expect(await changes.next() == SyncCursorChange(member: "astro", cursor: 1))
                    #expect(await changes.next() == SyncCursorChange(member: "luna", cursor: 1))
                    group.cancelAll()
                }
            }
        }
    }

    enum ListenerEvent: Equatable, Sendable {
        case listening(attempt: Int, pid: Int32)
        case reconnecting
    }
}
