import BaselineAsyncHTTPClient
import BaselineHTTP
import BaselineSync
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `POST /sync/push`, `GET /sync/pull` and `GET /sync/live` on a real server,
/// with members logged in for real: each member's rows are their own, every
/// bad push is refused whole with a typed answer, and the live socket tells
/// a member's devices when to pull.
@Suite("Sync: push, pull and the live cursor (real server)", .timeLimit(.minutes(2)))
struct SyncIntegrationTests {
    /// The server's clock, fixed, so that "ahead of it" is exact.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let nowMilliseconds: UInt64 = 1_700_000_000_000

    /// A server whose clock reads ``now``, its rows in memory.
    func withSyncServer(_ body: (RunningServer) async throws -> Void) async throws {
        try await withServer({ $0.now = { Self.now } }, body)
    }

    /// A server whose clock reads ``now``, its rows in fresh storage of `backend`.
    func withSyncServer(on backend: SyncBackend, _ body: (RunningServer) async throws -> Void) async throws {
        try await backend.withStorage { storage in
            try await withServer(
                {
                    $0.now = { Self.now }
                    $0.syncStorage = storage
                },
                body
            )
        }
    }

    /// `id`'s ID token, from a real login.
    func idToken(_ id: String, _ password: String, on server: RunningServer) async throws -> String {
        try await AuthAPI(client: server.client).logIn(for: User.ID(rawValue: id), with: password).rawValue
    }

    func astro(_ server: RunningServer) async throws -> String {
        try await idToken("astro", "stardust-42", on: server)
    }

    func luna(_ server: RunningServer) async throws -> String {
        try await idToken("luna", "moonwalk-1969", on: server)
    }

    static func bearer(_ token: String?) -> HTTPFields {
        token.map { [.authorization: "Bearer \($0)"] } ?? [:]
    }

    static func change(
        _ id: String,
        table: String = "todo",
        row: String,
        at milliseconds: UInt64 = nowMilliseconds,
        _ fields: [String: SyncValue]
    ) -> SyncChange {
        SyncChange(
            id: id,
            table: table,
            row: row,
            timestamp: HybridTimestamp(milliseconds: milliseconds, counter: 0, node: 7),
            fields: fields
        )
    }

    func push(_ changes: [SyncChange], token: String?, on server: RunningServer) async throws -> Response<Data> {
        let body = try JSONEncoder().encode(SyncPush(changes: changes))
        return try await push(body: body, token: token, on: server)
    }

    func push(body: Data, token: String?, on server: RunningServer) async throws -> Response<Data> {
        try await server.client.answer(
            .post("/sync/push", body: .data(body, contentType: "application/json"), headerFields: Self.bearer(token))
        )
    }

    func pull(
        after: String? = nil,
        limit: String? = nil,
        token: String?,
        on server: RunningServer
    ) async throws -> Response<Data> {
        var query: [URLQueryItem] = []
        if let after { query.append(URLQueryItem(name: "after", value: after)) }
        if let limit { query.append(URLQueryItem(name: "limit", value: limit)) }
        return try await server.client.answer(.get("/sync/pull", query: query, headerFields: Self.bearer(token)))
    }

    /// Everything `token`'s member has, in one page.
    func everything(_ token: String, on server: RunningServer) async throws -> SyncPage {
        let answer = try await pull(token: token, on: server)
        #expect(answer.status == .ok)
        return try answer.decoded()
    }

    @Test(arguments: SyncBackend.allCases)
    func aMemberPushesAndPullsTheirOwnRows(on backend: SyncBackend) async throws {
        try await withSyncServer(on: backend) { server in
            let token = try await astro(server)
            let changes = [
                Self.change("c1", row: "r1", ["text": .text("Buy milk"), "date": .real(1_700_000_000)]),
                Self.change("c2", row: "r2", ["text": .text("Water the plants")]),
            ]
            let pushed = try await push(changes, token: token, on: server)
            #expect(pushed.status == .ok)
            #expect(
                try pushed.decoded(as: SyncPushResult.self)
                    == SyncPushResult(applied: ["c1", "c2"], cursor: server.cursor(2))
            )
            // Again, as after a lost answer: applied once.
            let again = try await push(changes, token: token, on: server)
            #expect(
                try again.decoded(as: SyncPushResult.self)
                    == SyncPushResult(applied: ["c1", "c2"], cursor: server.cursor(2))
            )

            let first = try await pull(after: "0", limit: "1", token: token, on: server)
            #expect(first.status == .ok)
            let page: SyncPage = try first.decoded()
            #expect(page.rows == [SyncRow(table: "todo", row: "r1", state: changes[0].state)])
            #expect(page.cursor == server.cursor(1))
            #expect(page.more)
            let rest: SyncPage = try await pull(after: "\(page.cursor)", token: token, on: server).decoded()
            let second = SyncRow(table: "todo", row: "r2", state: changes[1].state)
            #expect(rest == SyncPage(rows: [second], cursor: server.cursor(2), more: false))
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func anotherMembersRowsCannotBeSeenNorChanged(on backend: SyncBackend) async throws {
        try await withSyncServer(on: backend) { server in
            let astro = try await astro(server)
            let luna = try await luna(server)
            let astros = Self.change("a1", row: "shared", ["text": .text("Astro's")])
            #expect(try await push([astros], token: astro, on: server).status == .ok)

            // Luna sees nothing of it.
            #expect(try await everything(luna, on: server) == SyncPage(rows: [], cursor: 0, more: false))

            // Her push touching it is refused whole, her own row with it.
            let own = Self.change("l1", row: "lunas", ["text": .text("Luna's")])
            let intrusion = Self.change(
                "l2",
                row: "shared",
                at: Self.nowMilliseconds + 1,
                ["text": .text("Luna's now")]
            )
            let refused = try await push([own, intrusion], token: luna, on: server)
            #expect(refused.status == .forbidden)
            let refusal: SyncRefusal = try refused.decoded()
            #expect(refusal.error.code == .notYours)
            #expect(refusal.error.changes.map(\.id) == ["l2"])
            #expect(refusal.error.changes.map(\.code) == [.notYours])

            #expect(try await everything(luna, on: server) == SyncPage(rows: [], cursor: 0, more: false))
            let astrosRows = try await everything(astro, on: server)
            #expect(astrosRows.rows == [SyncRow(table: "todo", row: "shared", state: astros.state)])
            #expect(astrosRows.cursor == server.cursor(1))
        }
    }

    @Test func withoutAValidTokenEverySyncRouteIs401() async throws {
        try await withSyncServer { server in
            for token in [nil, "not-a-token"] {
                let pushed = try await push([Self.change("c", row: "r", [:])], token: token, on: server)
                #expect(pushed.status == .unauthorized)
                #expect(pushed.serverError?.code == "unauthenticated")
                let pulled = try await pull(token: token, on: server)
                #expect(pulled.status == .unauthorized)
                #expect(pulled.serverError?.code == "unauthenticated")
            }
        }
    }

    /// A push with one good change and one bad one: refused with `status`
    /// and `code`, the bad change named, and nothing applied.
    @Test(arguments: [
        (SyncIntegrationTests.change("bad", table: "notes", row: "r", ["text": .text("x")]), 400, "unknown_table"),
        (SyncIntegrationTests.change("bad", row: "r", ["colour": .text("red")]), 400, "invalid_field"),
        (SyncIntegrationTests.change("bad", row: "r", ["date": .text("today")]), 400, "invalid_field"),
        (
            SyncIntegrationTests.change("bad", row: "r", ["text": .text(String(repeating: "x", count: 2001))]), 413,
            "value_too_large"
        ),
        (
            SyncIntegrationTests.change("bad", row: String(repeating: "r", count: 129), ["text": .text("x")]), 400,
            "malformed_change"
        ),
        // PostgreSQL's text cannot hold NUL: refused alike on every store.
        (SyncIntegrationTests.change("bad", row: "r\u{0}", ["text": .text("x")]), 400, "malformed_change"),
        (
            SyncIntegrationTests.change(
                "bad",
                row: "r",
                at: SyncIntegrationTests.nowMilliseconds + 10 * 60_000 + 1,
                ["text": .text("x")]
            ), 400, "clock_ahead"
        ),
    ])
    func aBadChangeRefusesTheWholePush(bad: SyncChange, status: Int, code: String) async throws {
        try await withSyncServer { server in
            let token = try await astro(server)
            let good = Self.change("good", row: "g", ["text": .text("fine")])
            let answer = try await push([good, bad], token: token, on: server)
            #expect(answer.status.code == status)
            let refusal: SyncRefusal = try answer.decoded()
            #expect(refusal.error.code.rawValue == code)
            #expect(refusal.error.changes.map(\.id) == ["bad"])
            #expect(refusal.error.changes.map(\.code.rawValue) == [code])
            #expect(try await everything(token, on: server) == SyncPage(rows: [], cursor: 0, more: false))
        }
    }

    @Test func aChangeThatDoesNotDecodeIsMalformedByItsID() async throws {
        try await withSyncServer { server in
            let token = try await astro(server)
            let body = #"""
                {"changes": [
                    {"id": "good", "table": "todo", "row": "g", "at": "0000018bcfe56800-00000000-0000000000000007",
                     "deleted": false, "fields": {"text": {"text": "fine"}}},
                    {"id": "bad", "table": "todo", "row": "r", "at": "yesterday", "deleted": false, "fields": {}}
                ]}
                """#
            let answer = try await push(body: Data(body.utf8), token: token, on: server)
            #expect(answer.status == .badRequest)
            let refusal: SyncRefusal = try answer.decoded()
            #expect(refusal.error.code == .malformed)
            #expect(refusal.error.changes.map(\.id) == ["bad"])
            #expect(refusal.error.changes.first?.message.contains("changes[1].at") == true)
            #expect(try await everything(token, on: server).rows.isEmpty)
        }
    }

    @Test func aBodyThatIsNotAPushIsABadRequest() async throws {
        try await withSyncServer { server in
            let token = try await astro(server)
            for body in [#"{"changes": ["#, #"{"rows": []}"#, "[]", ""] {
                let answer = try await push(body: Data(body.utf8), token: token, on: server)
                #expect(answer.status == .badRequest)
                #expect(answer.serverError?.code == "bad_request")
            }
        }
    }

    @Test func aTenMegabyteTextIsRefusedAsTooLargeUnread() async throws {
        try await withSyncServer { server in
            let token = try await astro(server)
            let huge = Self.change("huge", row: "r", ["text": .text(String(repeating: "x", count: 10 * 1024 * 1024))])
            let answer = try await push([huge], token: token, on: server)
            #expect(answer.status == .contentTooLarge)
            let refusal: SyncRefusal = try answer.decoded()
            #expect(refusal.error.code == .pushTooLarge)

            // The same, streamed with no declared length: cut off as it arrives.
            var request = URLRequest(url: server.baseURL.appendingPathComponent("sync/push"))
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBodyStream = InputStream(data: try JSONEncoder().encode(SyncPush(changes: [huge])))
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 413)
            #expect(try JSONDecoder().decode(SyncRefusal.self, from: data).error.code == .pushTooLarge)

            // Too many changes, each small.
            let many = (0...500).map { Self.change("c\($0)", row: "r\($0)", ["text": .text("x")]) }
            let tooMany = try await push(many, token: token, on: server)
            #expect(tooMany.status == .contentTooLarge)
            #expect(try tooMany.decoded(as: SyncRefusal.self).error.code == .pushTooLarge)
            #expect(try await push(Array(many.prefix(500)), token: token, on: server).status == .ok)
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aCursorTheServerNeverGaveIsRefused(on backend: SyncBackend) async throws {
        try await withSyncServer(on: backend) { server in
            let token = try await astro(server)
            // Ahead of the member's latest; of no epoch; of another epoch
            // (data the server has lost, or another server's).
            let otherEpoch = server.syncEpoch == SyncCursor.epochs.upperBound ? 1 : server.syncEpoch + 1
            let cursors = [server.cursor(5), 5, SyncCursor(seq: 1, epoch: otherEpoch).rawValue]
            for cursor in cursors {
                let ahead = try await pull(after: "\(cursor)", token: token, on: server)
                #expect(ahead.status == .badRequest)
                #expect(try ahead.decoded(as: SyncRefusal.self).error.code == .cursorAhead)
            }
            #expect(try await pull(after: "0", token: token, on: server).status == .ok)

            for (after, limit) in [("-1", nil), ("x", nil), (nil, "0"), (nil, "1001"), (nil, "ten")] {
                let answer = try await pull(after: after, limit: limit, token: token, on: server)
                #expect(answer.status == .badRequest)
                #expect(answer.serverError?.code == "bad_request")
            }
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func theLiveSocketSendsTheCursorOnConnectAndAfterEachPush(on backend: SyncBackend) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await withSyncServer(on: backend) { server in
                let astro = try await astro(server)
                let luna = try await luna(server)
                #expect(try await push([Self.change("a1", row: "a1", [:])], token: astro, on: server).status == .ok)

                let client = HTTPClient(baseURL: server.baseURL, transport: transport)
                let socket = try await client.webSocket(.get("/sync/live", headerFields: Self.bearer(astro)))
                var cursors = socket.messages(of: LiveCursor.self).makeAsyncIterator()
                #expect(try await cursors.next() == LiveCursor(cursor: server.cursor(1)))

                // A push over HTTP, another connection: the socket hears of it.
                #expect(try await push([Self.change("a2", row: "a2", [:])], token: astro, on: server).status == .ok)
                #expect(try await cursors.next() == LiveCursor(cursor: server.cursor(2)))

                // Luna's pushes (her cursor goes to 5) are not Astro's business:
                // his next message is his own push's.
                let lunas = (1...5).map { Self.change("l\($0)", row: "l\($0)", [:]) }
                #expect(try await push(lunas, token: luna, on: server).status == .ok)
                #expect(try await push([Self.change("a3", row: "a3", [:])], token: astro, on: server).status == .ok)
                #expect(try await cursors.next() == LiveCursor(cursor: server.cursor(3)))
                await socket.close()

                // Without a token, the handshake is refused with the JSON error.
                await #expect {
                    _ = try await client.webSocket(.get("/sync/live"))
                } throws: { error in
                    guard case .handshakeRefused(let head, let body) = error as? WebSocketError else { return false }
                    let document = try? JSONDecoder().decode(APIError.Document.self, from: body)
                    return head.status == .unauthorized && document?.error.code == "unauthenticated"
                }
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aRestartedServerKeepsTheRows(on backend: SyncBackend) async throws {
        try await backend.withStorage { storage in
            func withStoredServer<T>(_ body: (RunningServer) async throws -> T) async throws -> T {
                try await withServer(
                    {
                        $0.now = { Self.now }
                        $0.syncStorage = storage
                    },
                    body
                )
            }
            let change = Self.change("c1", row: "r1", ["text": .text("Still here")])
            let epoch = try await withStoredServer { server in
                let token = try await astro(server)
                #expect(try await push([change], token: token, on: server).status == .ok)
                return server.syncEpoch
            }
            try await withStoredServer { server in
                // The same data: the cursors devices hold still count in it.
                #expect(server.syncEpoch == epoch)
                let token = try await astro(server)
                let page = try await everything(token, on: server)
                #expect(
                    page
                        == SyncPage(
                            rows: [SyncRow(table: "todo", row: "r1", state: change.state)],
                            cursor: server.cursor(1),
                            more: false
                        )
                )
                // The change is still known: pushed again, it moves nothing.
                #expect(
                    try await push([change], token: token, on: server).decoded(as: SyncPushResult.self).cursor
                        == server.cursor(1)
                )
            }
        }
    }

    @Test func aPlainGetOfTheLiveSocketIs426() async throws {
        try await withSyncServer { server in
            let token = try await astro(server)
            let answer = try await server.client.answer(.get("/sync/live", headerFields: Self.bearer(token)))
            #expect(answer.status.code == 426)
            #expect(answer.serverError?.code == "upgrade_required")
        }
    }

    struct LiveCursor: Decodable, Equatable {
        var cursor: Int64
    }
}
