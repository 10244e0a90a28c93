import BaselineSync
import Foundation
import HummingbirdWSClient
import NIOCore
import NIOWebSocket
import Testing

@testable import SpacePhotosServer

/// `GET /sync/live` on a real server on loopback, with a real WebSocket
/// client (``LiveSocket``): every step waits on a message the server sends.
@Suite("GET /sync/live: the live sync cursor", .timeLimit(.minutes(2)))
struct SyncSocketTests {
    static let signer = TokenSigner.random(lifetime: .seconds(600))

    static func token(_ member: String) -> String {
        signer.issue(for: member, now: Date())
    }

    static func cursor(_ message: WebSocketMessage?) throws -> Int64? {
        guard case .text(let text)? = message else { return nil }
        return try JSONDecoder().decode(SyncSocketRoutes.Message.self, from: Data(text.utf8)).cursor
    }

    static func withServer(_ body: (RunningServer) async throws -> Void) async throws {
        let server = try await ExampleServer(
            configuration: .init(passwordHasher: PasswordHasher(cost: 4), tokenSigner: signer)
        ).start()
        do {
            try await body(server)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func textIsIgnoredAndABinaryMessageClosesWith1008() async throws {
        try await Self.withServer { server async throws in
            let socket = LiveSocket(port: server.port, token: Self.token("astro"), path: "/sync/live")
            #expect(try Self.cursor(await socket.nextMessage()) == 0)
            socket.send(text: "hello")
            socket.send(.binary(ByteBuffer(string: "hello")))
            // Nothing answers the text; the binary message ends the socket.
            #expect(await socket.nextMessage() == nil)
            #expect(try await socket.finished.value?.closeCode == .policyViolation)
        }
    }

    @Test func withoutAValidTokenTheUpgradeGets401AndAPlainGet426() async throws {
        try await Self.withServer { server async throws in
            for authorization in [nil, "Bearer not-a-token"] {
                let answer = try await RawExchange.upgrade(
                    "/sync/live",
                    authorization: authorization,
                    port: server.port
                )
                #expect(answer.status == 401)
                #expect(answer.headers["upgrade"] == nil)
                let document = try JSONDecoder().decode(APIError.Document.self, from: Data(answer.body.utf8))
                #expect(document.error.code == "unauthenticated")
                #expect(answer.trailing.isEmpty)
            }
            let plain = try await RawExchange.send(
                "GET /sync/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(plain.status == 426)
            #expect(plain.headers["upgrade"] == "websocket")
            let post = try await RawExchange.send(
                "POST /sync/live HTTP/1.1\r\nHost: 127.0.0.1\r\n" + RawExchange.upgradeHeaders
                    + "Authorization: Bearer \(Self.token("astro"))\r\n\r\n",
                port: server.port
            )
            #expect(post.status == 405)
        }
    }

    @Test func stoppingTheServerClosesTheSocket() async throws {
        let server = try await ExampleServer(
            configuration: .init(passwordHasher: PasswordHasher(cost: 4), tokenSigner: Self.signer)
        ).start()
        let socket = LiveSocket(port: server.port, token: Self.token("astro"), path: "/sync/live")
        #expect(try Self.cursor(await socket.nextMessage()) == 0)
        await server.stop()
        #expect(await socket.nextMessage() == nil)
        #expect(try await socket.finished.value?.closeCode == .normalClosure)
    }
}
