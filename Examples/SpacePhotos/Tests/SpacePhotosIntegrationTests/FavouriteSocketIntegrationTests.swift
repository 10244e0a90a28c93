import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Clocks
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

@testable import spacephotos

/// Baseline's WebSocket on the AsyncHTTPClient transport against the example
/// server's live favourites: what one member sets, every connected client
/// sees, each with its own flag.
@Suite("Live favourites over WebSocket (real server, AsyncHTTPClient)", .timeLimit(.minutes(2)))
struct FavouriteSocketIntegrationTests {
    struct Change: Encodable {
        var photo: String
        var favourite: Bool
    }

    struct Count: Decodable, Equatable {
        var photo: String
        var count: Int
        var favourite: Bool
    }

    /// Runs `body` with a server and one transport for its clients.
    func withServerAndTransport(
        _ body: (RunningServer, AsyncHTTPClientTransport) async throws -> Void
    ) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await withServer { server in try await body(server, transport) }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    /// `id`'s ID token, from a real login.
    func idToken(_ id: String, _ password: String, on server: RunningServer) async throws -> String {
        try await AuthAPI(client: server.client).logIn(for: User.ID(rawValue: id), with: password).rawValue
    }

    func live(_ token: String, query: [URLQueryItem] = []) -> Request<Void> {
        .get("/favourites/live", query: query, headerFields: [.authorization: "Bearer \(token)"])
    }

    @Test func aFavouriteSetByOneMemberReachesEveryClient() async throws {
        try await withServerAndTransport { server, transport in
            let client = HTTPClient(baseURL: server.baseURL, transport: transport)
            let astro = try await client.webSocket(live(idToken("astro", "stardust-42", on: server)))
            let luna = try await client.webSocket(live(idToken("luna", "moonwalk-1969", on: server)))
            var astroCounts = astro.messages(of: Count.self).makeAsyncIterator()
            var lunaCounts = luna.messages(of: Count.self).makeAsyncIterator()

            try await astro.send(json: Change(photo: "1995-06-16", favourite: true))
            #expect(try await astroCounts.next() == Count(photo: "1995-06-16", count: 1, favourite: true))
            #expect(try await lunaCounts.next() == Count(photo: "1995-06-16", count: 1, favourite: false))

            try await luna.send(json: Change(photo: "1995-06-16", favourite: true))
            #expect(try await astroCounts.next() == Count(photo: "1995-06-16", count: 2, favourite: true))
            #expect(try await lunaCounts.next() == Count(photo: "1995-06-16", count: 2, favourite: true))

            await astro.close()
            await luna.close()
        }
    }

    @Test func aSocketDroppedByTheServerConnectsAgainAndReadsOn() async throws {
        try await withServerAndTransport { server, transport in
            // The backoff's waits end at once: the test is about what
            // happens after them.
            let configuration = HTTPClient.Configuration(baseURL: server.baseURL, clock: ImmediateClock())
            let client = HTTPClient(configuration: configuration, transport: transport)
            let token = try await idToken("astro", "stardust-42", on: server)
            let connections = LockedValue(0)
            // The server drops each connection after one message.
            let socket = try await client.webSocket(
                live(token, query: [URLQueryItem(name: "dropAfter", value: "1")]),
                // No pings: on a clock whose waits end at once they would never stop.
                configuration: .init(keepAlive: nil, reconnection: .init(jitter: 0, maximumAttempts: 3))
            ) { _ in
                connections.withLock { $0 += 1 }
            }
            var counts = socket.messages(of: Count.self).makeAsyncIterator()
            try await socket.send(json: Change(photo: "1969-07-20", favourite: true))
            // The answer on the first connection, then the snapshot on the second.
            #expect(try await counts.next() == Count(photo: "1969-07-20", count: 1, favourite: true))
            #expect(try await counts.next() == Count(photo: "1969-07-20", count: 1, favourite: true))
            #expect(connections.current >= 2)
            await socket.close()
        }
    }

    @Test func anExpiredTokenIsRefreshedAtTheHandshake() async throws {
        try await withServerAndTransport { server, transport in
            let directory = try TemporaryDirectory()
            let plain = HTTPClient(baseURL: server.baseURL, transport: transport)
            let authAPI = AuthAPI(client: plain)
            let tokens = SessionTokens(directory: directory.url, authAPI: authAPI)
            let members = MemberAPI(client: plain)
            try await AuthService(authAPI: authAPI, memberAPI: members, tokens: tokens)
                .logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
            try await tokens.replaceIDTokenForTesting(IDToken(rawValue: "v1.expired.token"))

            let client = HTTPClient(
                baseURL: server.baseURL,
                transport: transport,
                middleware: [BearerAuthentication(provider: tokens)]
            )
            let socket = try await client.webSocket(.get("/favourites/live"))
            #expect(await tokens.refreshCount == 1)
            try await socket.send(json: Change(photo: "2001-01-01", favourite: true))
            #expect(try await socket.messages(of: Count.self).first { _ in true }?.count == 1)
            await socket.close()
        }
    }

    @Test func aHandshakeWithoutATokenIsRefusedWith401() async throws {
        try await withServerAndTransport { server, transport in
            let client = HTTPClient(baseURL: server.baseURL, transport: transport)
            await #expect {
                _ = try await client.webSocket(.get("/favourites/live"))
            } throws: { error in
                guard case .handshakeRefused(let head, let body) = error as? WebSocketError else { return false }
                let document = try? JSONDecoder().decode(APIError.Document.self, from: body)
                return head.status == .unauthorized && document != nil
            }
        }
    }
}
