import Foundation
import HummingbirdWSClient
import NIOCore
import NIOWebSocket
import Testing

@testable import SpacePhotosServer

/// `GET /echo/socket` on a real server on loopback: what goes in comes back.
@Suite("GET /echo/socket: the echo socket", .timeLimit(.minutes(2)))
struct EchoSocketTests {
    @Test func textAndBinaryComeBackAsTheyWentInOrder() async throws {
        try await FavouriteSocketTests.withServer { server async throws in
            let socket = LiveSocket(port: server.port, token: nil, path: EchoSocketRoutes.path)
            let kilobyte = String(repeating: "é", count: 512)
            socket.send(text: "first")
            socket.send(.binary(ByteBuffer(bytes: [0, 1, 2, 255])))
            socket.send(text: kilobyte)
            // The largest message the socket takes, in frames of it.
            let largest = ByteBuffer(repeating: 7, count: FavouriteSocketRoutes.maximumMessageBytes)
            socket.send(.binary(largest))
            #expect(await socket.nextMessage() == .text("first"))
            #expect(await socket.nextMessage() == .binary(ByteBuffer(bytes: [0, 1, 2, 255])))
            #expect(await socket.nextMessage() == .text(kilobyte))
            #expect(await socket.nextMessage() == .binary(largest))
            socket.close()
            #expect(await socket.nextMessage() == nil)
            #expect(try await socket.finished.value?.closeCode == .normalClosure)
        }
    }

    @Test func aMessageOver4KiBClosesWith1009() async throws {
        try await FavouriteSocketTests.withServer { server async throws in
            let socket = LiveSocket(port: server.port, token: nil, path: EchoSocketRoutes.path)
            socket.send(text: String(repeating: "x", count: FavouriteSocketRoutes.maximumMessageBytes + 1))
            #expect(await socket.nextMessage() == nil)
            #expect(try await socket.finished.value?.closeCode == .messageTooLarge)
        }
    }

    @Test func aPlainGetGets426AndAnotherMethod405() async throws {
        try await FavouriteSocketTests.withServer { server async throws in
            let plain = try await RawExchange.send(
                "GET /echo/socket HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                port: server.port
            )
            #expect(plain.status == 426)
            #expect(plain.headers["upgrade"] == "websocket")
            let post = try await RawExchange.send(
                "POST /echo/socket HTTP/1.1\r\nHost: 127.0.0.1\r\n" + RawExchange.upgradeHeaders
                    + "Content-Length: 0\r\n\r\n",
                port: server.port
            )
            #expect(post.status == 405)
            #expect(post.trailing.isEmpty)
        }
    }
}
