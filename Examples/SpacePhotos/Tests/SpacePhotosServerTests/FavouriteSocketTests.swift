import Foundation
import HummingbirdWSClient
import NIOCore
import NIOWebSocket
import Testing

@testable import SpacePhotosServer

/// `GET /favourites/live` on a real server on loopback, with a real
/// WebSocket client (``LiveSocket``). Every step waits on a message the
/// server sends: a socket's first message proves it is subscribed, so the
/// changes after it reach it.
@Suite("GET /favourites/live: the live favourites socket", .timeLimit(.minutes(2)))
struct FavouriteSocketTests {
    static let signer = TokenSigner.random(lifetime: .seconds(600))

    static func token(_ member: String, issued: Date = Date()) -> String {
        signer.issue(for: member, now: issued)
    }

    static func withServer(
        _ configure: (inout ExampleServer.Configuration) -> Void = { _ in },
        _ body: (RunningServer) async throws -> Void
    ) async throws {
        var configuration = ExampleServer.Configuration(passwordHasher: PasswordHasher(cost: 4), tokenSigner: signer)
        configure(&configuration)
        let server = try await ExampleServer(configuration: configuration).start()
        do {
            try await body(server)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    static func update(_ photo: String, _ count: Int, _ favourite: Bool) -> FavouriteUpdate {
        FavouriteUpdate(photo: photo, count: count, favourite: favourite)
    }

    @Test func twoMembersSeeEachChangeWithTheirOwnFlag() async throws {
        try await Self.withServer { server async throws in
            let astro = LiveSocket(port: server.port, token: Self.token("astro"))
            astro.set("earthrise", true)
            #expect(try await astro.nextUpdate() == Self.update("earthrise", 1, true))

            let luna = LiveSocket(port: server.port, token: Self.token("luna"))
            // The snapshot: Luna does not have it.
            #expect(try await luna.nextUpdate() == Self.update("earthrise", 1, false))

            luna.set("earthrise", true)
            #expect(try await astro.nextUpdate() == Self.update("earthrise", 2, true))
            #expect(try await luna.nextUpdate() == Self.update("earthrise", 2, true))

            astro.set("earthrise", false)
            #expect(try await astro.nextUpdate() == Self.update("earthrise", 1, false))
            #expect(try await luna.nextUpdate() == Self.update("earthrise", 1, true))

            // A photo nobody else has: both hear of it, each with their own flag.
            luna.set("pale-blue-dot", true)
            #expect(try await astro.nextUpdate() == Self.update("pale-blue-dot", 1, false))
            #expect(try await luna.nextUpdate() == Self.update("pale-blue-dot", 1, true))

            astro.close()
            luna.close()
            #expect(try await astro.rest().isEmpty)
            #expect(try await luna.rest().isEmpty)
            #expect(try await astro.finished.value?.closeCode == .normalClosure)
        }
    }

    @Test func aNewSocketGetsTheSnapshotThenTheChangesOfItsMembersOtherSockets() async throws {
        try await Self.withServer { server async throws in
            let first = LiveSocket(port: server.port, token: Self.token("astro"))
            for photo in ["crab-nebula", "andromeda"] { first.set(photo, true) }
            #expect(try await first.nextUpdate() == Self.update("crab-nebula", 1, true))
            #expect(try await first.nextUpdate() == Self.update("andromeda", 1, true))

            // In photo id order, with this member's flags.
            let second = LiveSocket(port: server.port, token: Self.token("astro"))
            #expect(try await second.nextUpdate() == Self.update("andromeda", 1, true))
            #expect(try await second.nextUpdate() == Self.update("crab-nebula", 1, true))
            let other = LiveSocket(port: server.port, token: Self.token("luna"))
            #expect(try await other.nextUpdate() == Self.update("andromeda", 1, false))
            #expect(try await other.nextUpdate() == Self.update("crab-nebula", 1, false))

            // A change from one of Astro's sockets reaches the other too.
            first.set("andromeda", false)
            #expect(try await first.nextUpdate() == Self.update("andromeda", 0, false))
            #expect(try await second.nextUpdate() == Self.update("andromeda", 0, false))
            #expect(try await other.nextUpdate() == Self.update("andromeda", 0, false))

            // A photo whose count fell to zero is not in a new snapshot.
            let third = LiveSocket(port: server.port, token: Self.token("luna"))
            #expect(try await third.nextUpdate() == Self.update("crab-nebula", 1, false))
        }
    }

    @Test func aSetThatChangesNothingIsConfirmedToTheSenderAlone() async throws {
        try await Self.withServer { server async throws in
            let astro = LiveSocket(port: server.port, token: Self.token("astro"))
            astro.set("horsehead", true)
            #expect(try await astro.nextUpdate() == Self.update("horsehead", 1, true))
            let luna = LiveSocket(port: server.port, token: Self.token("luna"))
            #expect(try await luna.nextUpdate() == Self.update("horsehead", 1, false))

            // Setting it again, and unsetting one never set: one confirmation each.
            astro.set("horsehead", true)
            astro.set("never-set", false)
            #expect(try await astro.nextUpdate() == Self.update("horsehead", 1, true))
            #expect(try await astro.nextUpdate() == Self.update("never-set", 0, false))
            // Luna's next message is the next real change, not a confirmation.
            astro.set("earthrise", true)
            #expect(try await luna.nextUpdate() == Self.update("earthrise", 1, false))
            #expect(try await astro.nextUpdate() == Self.update("earthrise", 1, true))
        }
    }

    @Test func withoutAValidTokenTheUpgradeGets401WithTheJSONErrorAndNothingElse() async throws {
        try await Self.withServer { server async throws in
            let cases: [(String?, String)] = [
                (nil, "Missing bearer token."),
                ("Bearer not-a-token", "The token is not valid."),
                ("Basic YXN0cm86c3RhcmR1c3QtNDI=", "The Authorization header is not a bearer token."),
                ("Bearer " + Self.token("astro", issued: Date(timeIntervalSinceNow: -3_600)), "The token has expired."),
                ("Bearer " + Self.token("comet"), "The token's member no longer exists."),
            ]
            for (authorization, message) in cases {
                let answer = try await RawExchange.upgrade(
                    "/favourites/live",
                    authorization: authorization,
                    port: server.port
                )
                #expect(answer.status == 401)
                #expect(answer.headers["www-authenticate"] == "Bearer")
                #expect(answer.headers["content-type"] == "application/json; charset=utf-8")
                #expect(answer.headers["upgrade"] == nil)
                let document = try JSONDecoder().decode(APIError.Document.self, from: Data(answer.body.utf8))
                #expect(document.error == .init(code: "unauthenticated", message: message))
                // One answer, then the end of the connection: no upgrade, no second answer.
                #expect(answer.trailing.isEmpty)
            }
            // A WebSocket client sees the upgrade fail.
            let socket = LiveSocket(port: server.port, token: nil)
            await #expect(throws: WebSocketClientError.webSocketUpgradeFailed) { try await socket.finished.value }
        }
    }

    @Test func otherRequestsGetTheirOwnErrors() async throws {
        try await Self.withServer { server async throws in
            let token = "Bearer " + Self.token("astro")
            // Without the upgrade: 426, on a connection that stays usable.
            let plain = try await RawExchange.send(
                "GET /favourites/live HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(token)\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(plain.status == 426)
            #expect(plain.headers["upgrade"] == "websocket")
            #expect(
                try JSONDecoder().decode(APIError.Document.self, from: Data(plain.body.utf8)).error.code
                    == "upgrade_required"
            )

            let elsewhere = try await RawExchange.upgrade("/members/me", authorization: token, port: server.port)
            #expect(elsewhere.status == 404)
            #expect(
                try JSONDecoder().decode(APIError.Document.self, from: Data(elsewhere.body.utf8)).error.code
                    == "not_found"
            )

            let badKnob = try await RawExchange.upgrade(
                "/favourites/live?dropAfter=x",
                authorization: token,
                port: server.port
            )
            #expect(badKnob.status == 400)
            #expect(badKnob.trailing.isEmpty)

            // Plain HTTP still works beside the upgrade.
            let health = try await RawExchange.send(
                "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(health.status == 200 && health.body == "ok")
        }
    }

    @Test(arguments: [
        #"{"photo": "earthrise"}"#,
        #"{"photo": "", "favourite": true}"#,
        #"{"photo": "a/b", "favourite": true}"#,
        #"{"photo": "\#(String(repeating: "x", count: 65))", "favourite": true}"#,
        "not json",
    ])
    func anInvalidMessageClosesWith1008(_ text: String) async throws {
        try await Self.withServer { server async throws in
            let socket = LiveSocket(port: server.port, token: Self.token("astro"))
            socket.send(text: text)
            #expect(try await socket.rest().isEmpty)
            #expect(try await socket.finished.value?.closeCode == .policyViolation)
        }
    }

    @Test func aBinaryMessageClosesWith1008AndAnOversizedFrameOrMessageWith1009() async throws {
        try await Self.withServer { server async throws in
            let binary = LiveSocket(port: server.port, token: Self.token("astro"))
            binary.send(.binary(ByteBuffer(string: #"{"photo":"earthrise","favourite":true}"#)))
            #expect(try await binary.finished.value?.closeCode == .policyViolation)

            // The longest id is fine; a frame over 4 KiB is not.
            let large = LiveSocket(port: server.port, token: Self.token("astro"))
            let longest = String(repeating: "x", count: 64)
            large.set(longest, true)
            #expect(try await large.nextUpdate() == Self.update(longest, 1, true))
            large.send(
                text: #"{"photo":"earthrise","favourite":true,"pad":"\#(String(repeating: " ", count: 4_096))"}"#
            )
            #expect(try await large.rest().isEmpty)
            #expect(try await large.finished.value?.closeCode == .messageTooLarge)

            // Small frames that add up to a message over 4 KiB.
            let fragmented = LiveSocket(port: server.port, token: Self.token("astro"))
            #expect(try await fragmented.nextUpdate() == Self.update(longest, 1, true))
            let part = ByteBuffer(string: String(repeating: " ", count: 2_000))
            fragmented.send(.custom(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "{"))))
            fragmented.send(.custom(WebSocketFrame(fin: false, opcode: .continuation, data: part)))
            fragmented.send(.custom(WebSocketFrame(fin: false, opcode: .continuation, data: part)))
            fragmented.send(.custom(WebSocketFrame(fin: true, opcode: .continuation, data: part)))
            #expect(try await fragmented.rest().isEmpty)
            #expect(try await fragmented.finished.value?.closeCode == .messageTooLarge)
        }
    }

    @Test func aFullTableRefusesNewPhotosButKeepsTheSocketOpen() async throws {
        try await Self.withServer({ $0.favouritePhotoLimit = 2 }) { server async throws in
            let astro = LiveSocket(port: server.port, token: Self.token("astro"))
            for photo in ["a", "b", "c"] { astro.set(photo, true) }
            #expect(try await astro.nextUpdate() == Self.update("a", 1, true))
            #expect(try await astro.nextUpdate() == Self.update("b", 1, true))
            #expect(try await astro.next() == .error(code: "too_many_photos"))
            // Photos already counted can still be set by others; freeing one makes room.
            let luna = LiveSocket(port: server.port, token: Self.token("luna"))
            #expect(try await luna.nextUpdate() == Self.update("a", 1, false))
            #expect(try await luna.nextUpdate() == Self.update("b", 1, false))
            luna.set("a", true)
            #expect(try await luna.nextUpdate() == Self.update("a", 2, true))
            #expect(try await astro.nextUpdate() == Self.update("a", 2, true))
            astro.set("b", false)
            astro.set("c", true)
            #expect(try await astro.nextUpdate() == Self.update("b", 0, false))
            #expect(try await astro.nextUpdate() == Self.update("c", 1, true))
        }
    }

    @Test func dropAfterEndsTheConnectionWithoutACloseFrame() async throws {
        try await Self.withServer { server async throws in
            let astro = LiveSocket(port: server.port, token: Self.token("astro"))
            astro.set("earthrise", true)
            #expect(try await astro.nextUpdate() == Self.update("earthrise", 1, true))

            // One message of snapshot, one update, then the drop.
            let dropped = LiveSocket(port: server.port, token: Self.token("luna"), path: "/favourites/live?dropAfter=2")
            #expect(try await dropped.nextUpdate() == Self.update("earthrise", 1, false))
            astro.set("pale-blue-dot", true)
            #expect(try await dropped.nextUpdate() == Self.update("pale-blue-dot", 1, false))
            #expect(try await dropped.rest().isEmpty)
            #expect(try await dropped.finished.value == nil)

            // dropAfter=0: the upgrade, then the end of the connection, not
            // even a close frame. (Read raw: WSClient can miss the end of a
            // connection that closes as it takes the upgrade.)
            let immediately = try await RawExchange.upgrade(
                "/favourites/live?dropAfter=0",
                authorization: "Bearer " + Self.token("luna"),
                port: server.port
            )
            #expect(immediately.status == 101)
            #expect(immediately.headers["upgrade"]?.lowercased() == "websocket")
            #expect(immediately.body.isEmpty && immediately.trailing.isEmpty)

            // The server is none the worse: a new socket gets the snapshot.
            let again = LiveSocket(port: server.port, token: Self.token("luna"))
            #expect(try await again.nextUpdate() == Self.update("earthrise", 1, false))
        }
    }

    @Test func stoppingTheServerClosesLiveSockets() async throws {
        let server = try await ExampleServer(
            configuration: .init(passwordHasher: PasswordHasher(cost: 4), tokenSigner: Self.signer)
        ).start()
        let socket = LiveSocket(port: server.port, token: Self.token("astro"))
        socket.set("earthrise", true)
        #expect(try await socket.nextUpdate() == Self.update("earthrise", 1, true))
        await server.stop()
        #expect(try await socket.rest().isEmpty)
        #expect(try await socket.finished.value?.closeCode == .normalClosure)
    }
}
