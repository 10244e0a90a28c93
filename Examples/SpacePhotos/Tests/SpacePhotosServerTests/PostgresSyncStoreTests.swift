import BaselineSync
import Foundation
import Logging
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
                await #expect(throws: (any Error).self) { try await store.cursor(member: "astro") }
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
}
