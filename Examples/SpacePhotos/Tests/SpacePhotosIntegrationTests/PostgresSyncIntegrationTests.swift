import BaselineAsyncHTTPClient
import BaselineHTTP
import BaselineSync
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosTestSupport
import Testing

@testable import SpacePhotosServer

/// What only PostgreSQL storage can do or get wrong: two servers on one
/// database, and servers stopped at any point of their start.
///
/// Skipped, with the reason shown, without `BASELINE_POSTGRES_URL`; failing
/// instead under `BASELINE_REQUIRE_POSTGRES=1` (CI).
@Suite(
    "Sync on PostgreSQL: servers sharing a database",
    .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.skipMessage),
    .timeLimit(.minutes(2))
)
struct PostgresSyncIntegrationTests {
    /// A configuration on `url`'s `schema`; servers given the same signer
    /// accept each other's tokens, as behind one load balancer.
    static func configure(
        _ configuration: inout ExampleServer.Configuration,
        url: URL,
        schema: String,
        signer: TokenSigner
    ) {
        configuration.syncStorage = .postgres(url, schema: schema)
        configuration.tokenSigner = signer
    }

    static func signer() -> TokenSigner {
        TokenSigner(secret: Data((0..<32).map { _ in UInt8.random(in: 0...255) }), lifetime: .seconds(3600))
    }

    static func change(_ id: String, row: String) -> SyncChange {
        SyncChange(
            id: id,
            table: "todo",
            row: row,
            timestamp: HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 0, node: 7),
            fields: ["text": .text(id)]
        )
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    static func push(_ changes: [SyncChange], token: String, on server: RunningServer) async throws -> SyncPushResult {
        let body = try JSONEncoder().encode(SyncPush(changes: changes))
        return try await server.client.answer(
            .post("/sync/push", body: .data(body, contentType: "application/json"), headerFields: bearer(token))
        )
        .decoded()
    }

    static func astro(on server: RunningServer) async throws -> String {
        try await AuthAPI(client: server.client).logIn(for: User.ID(rawValue: "astro"), with: "stardust-42").rawValue
    }

    struct LiveCursor: Decodable, Equatable {
        var cursor: Int64
    }

    @Test func aPushThroughOneServerWakesTheLiveSocketsOfAnother() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            let signer = Self.signer()
            let transport = AsyncHTTPClientTransport()
            do {
                try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { first in
                    try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { second in
                        let token = try await Self.astro(on: first)
                        let client = HTTPClient(baseURL: second.baseURL, transport: transport)
                        let socket = try await client.webSocket(.get("/sync/live", headerFields: Self.bearer(token)))
                        var cursors = socket.messages(of: LiveCursor.self).makeAsyncIterator()
                        #expect(try await cursors.next() == LiveCursor(cursor: 0))

                        #expect(
                            try await Self.push([Self.change("c1", row: "r1")], token: token, on: first).cursor
                                == first.cursor(1)
                        )
                        // The servers share the data, so its epoch too.
                        #expect(first.syncEpoch == second.syncEpoch)
                        #expect(try await cursors.next() == LiveCursor(cursor: first.cursor(1)))
                        #expect(
                            try await Self.push([Self.change("c2", row: "r2")], token: token, on: first).cursor
                                == first.cursor(2)
                        )
                        #expect(try await cursors.next() == LiveCursor(cursor: first.cursor(2)))
                        await socket.close()
                    }
                }
                try await transport.shutdown()
            } catch {
                try? await transport.shutdown()
                throw error
            }
        }
    }

    @Test func concurrentPushesOfOneMemberThroughTwoServersTakeDistinctGapFreeSeqs() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            let signer = Self.signer()
            try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { first in
                try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { second in
                    let token = try await Self.astro(on: first)
                    let perServer = 12
                    let cursors = try await withThrowingTaskGroup(of: Int64.self) { group in
                        for index in 0..<(2 * perServer) {
                            let server = index % 2 == 0 ? first : second
                            // Two changes per push: each push takes two seqs in a row.
                            let changes = [
                                Self.change("a\(index)", row: "a\(index)"), Self.change("b\(index)", row: "b\(index)"),
                            ]
                            group.addTask { try await Self.push(changes, token: token, on: server).cursor }
                        }
                        return try await group.reduce(into: [Int64]()) { $0.append($1) }
                    }
                    // Each push ends on an even seq of its own: 2, 4, … 48.
                    #expect(cursors.sorted() == (1...(2 * perServer)).map { first.cursor(Int64(2 * $0)) })
                    let page: SyncPage = try await second.client.answer(
                        .get(
                            "/sync/pull",
                            query: [URLQueryItem(name: "limit", value: "1000")],
                            headerFields: Self.bearer(token)
                        )
                    )
                    .decoded()
                    #expect(page.rows.count == 4 * perServer)
                    #expect(page.cursor == first.cursor(Int64(4 * perServer)))
                    // Every push's two rows are next to each other in seq order.
                    for pair in stride(from: 0, to: page.rows.count, by: 2) {
                        #expect(page.rows[pair].row.dropFirst() == page.rows[pair + 1].row.dropFirst())
                    }
                }
            }
        }
    }

    @Test func aServerStoppedAsSoonAsItStartsStops() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            var configuration = ExampleServer.Configuration(passwordHasher: PasswordHasher(cost: 4))
            configuration.syncStorage = .postgres(url, schema: schema)
            for _ in 0..<20 {
                let server = try await ExampleServer(configuration: configuration).start()
                await server.stop()
            }
        }
    }

    /// Returns when the task is cancelled.
    static func untilCancelled() async {
        let (never, sink) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
        sink.finish()
    }

    @Test func aServerWhoseStartIsCancelledAtAnyPointThrowsCancellation() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            var configuration = ExampleServer.Configuration(passwordHasher: PasswordHasher(cost: 4))
            configuration.syncStorage = .postgres(url, schema: schema)
            // Its store never listens, so start() cannot return before it
            // is cancelled: whatever step it is at, it stops and throws.
            var held = configuration
            held.syncListenerHooks.beforeListening = { _ in await Self.untilCancelled() }
            // Cancelled after more and more steps: connecting, making the
            // tables, starting the client, waiting for the listener.
            for yields in 0..<20 {
                let starting = Task { [held] in try await ExampleServer(configuration: held).start() }
                for _ in 0..<yields { await Task.yield() }
                starting.cancel()
                await #expect(throws: CancellationError.self) { _ = try await starting.value }
            }
            // Cancelled as it waits for the listener, its last step.
            let (reached, reachedSink) = AsyncStream.makeStream(of: Void.self)
            held.syncListenerHooks.waiting = { reachedSink.yield() }
            var waits = reached.makeAsyncIterator()
            let starting = Task { [held] in try await ExampleServer(configuration: held).start() }
            await waits.next()
            starting.cancel()
            await #expect(throws: CancellationError.self) { _ = try await starting.value }
            // And cancelled before it starts: nothing is opened.
            let before = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await ExampleServer(configuration: configuration).start()
            }
            await #expect(throws: CancellationError.self) { _ = try await before.value }
            // The database is still usable: a server starts and serves.
            let server = try await ExampleServer(configuration: configuration).start()
            let token = try await Self.astro(on: server)
            #expect(
                try await Self.push([Self.change("c", row: "r")], token: token, on: server).cursor == server.cursor(1)
            )
            await server.stop()
        }
    }

    @Test func aServerRestartedBetweenPushesKeepsEveryRow() async throws {
        try await PostgresTestDatabase.withSchema { url, schema in
            let signer = Self.signer()
            for round in 1...5 {
                try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { server in
                    let token = try await Self.astro(on: server)
                    let result = try await Self.push(
                        [Self.change("c\(round)", row: "r\(round)")],
                        token: token,
                        on: server
                    )
                    #expect(result.cursor == server.cursor(Int64(round)))
                }
            }
            try await withServer({ Self.configure(&$0, url: url, schema: schema, signer: signer) }) { server in
                let token = try await Self.astro(on: server)
                let page: SyncPage = try await server.client.answer(
                    .get("/sync/pull", headerFields: Self.bearer(token))
                )
                .decoded()
                #expect(page.rows.map(\.row) == (1...5).map { "r\($0)" })
                #expect(page.cursor == server.cursor(5))
            }
        }
    }
}

@Suite("Sync on PostgreSQL: an unreachable database", .timeLimit(.minutes(1)))
struct UnreachablePostgresTests {
    @Test func aServerOnAnUnreachableDatabaseFailsToStartWithTheReason() async throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let url = try #require(URL(string: "postgres://someone:secret@127.0.0.1:1/nowhere"))
        var configuration = ExampleServer.Configuration(passwordHasher: PasswordHasher(cost: 4))
        configuration.syncStorage = .postgres(url)
        await #expect {
            _ = try await ExampleServer(configuration: configuration).start()
        } throws: { error in
            guard case .unreachable(let target, _) = error as? PostgresSyncStoreError else { return false }
            // The password is not in the message.
            return target == "postgres://someone@127.0.0.1:1/nowhere" && !"\(error)".contains("secret")
        }
    }

    @Test func aSyncDatabaseValueIsAURLOrAFile() throws {
        #expect(try SyncStorage.parse("postgres://u@h:5432/db") == .postgres(URL(string: "postgres://u@h:5432/db")!))
        #expect(try SyncStorage.parse("postgresql://u@h/db") == .postgres(URL(string: "postgresql://u@h/db")!))
        #expect(try SyncStorage.parse("sync.sqlite") == .sqlite(URL(fileURLWithPath: "sync.sqlite")))
        // A URL that does not parse is refused, not taken for a file name.
        #expect(throws: SyncStorageError.invalidURL) { try SyncStorage.parse("postgres://u@[::1/db") }
        #expect(throws: SyncStorageError.invalidURL) { try SyncStorage.parse("postgresql:///db") }
    }
}
