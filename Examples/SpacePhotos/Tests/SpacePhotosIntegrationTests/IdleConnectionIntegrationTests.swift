import Foundation
import SpacePhotosServer
import Testing

@Suite("Idle and half-sent connections", .timeLimit(.minutes(2)))
struct IdleConnectionIntegrationTests {
    @Test func manyIdleConnectionsDoNotStopOthersAndAreClosedAfterTheTimeout() async throws {
        try await withServer({ $0.idleTimeout = .seconds(2) }) { server in
            let port = server.port
            // 200 connections: 150 that send nothing, 50 stopped halfway through a request head.
            let sockets = try await onOwnThread {
                let sockets = try (0..<200).map { _ in try IdleSocket(port: port) }
                for socket in sockets.suffix(50) { try socket.sendText("GET /health HTTP/1.1\r\nHost: 127.0") }
                return sockets
            }
            let answer = try await RawHTTPClient.get("/health", port: port)
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "ok")
            // The server hangs up on both kinds once they have been idle for the timeout.
            let endings = try await onOwnThread { [sockets] in
                [sockets[0].waitForClose(), sockets[199].waitForClose()]
            }
            #expect(endings == [.closed, .closed])
        }
    }
}
