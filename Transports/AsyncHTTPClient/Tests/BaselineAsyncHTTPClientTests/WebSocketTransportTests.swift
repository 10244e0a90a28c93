import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing

@testable import BaselineAsyncHTTPClient

@Suite("AsyncHTTPClientTransport WebSockets", .timeLimit(.minutes(1)))
struct WebSocketTransportTests {
    typealias Event = TestWebSocketServer.Event

    // MARK: Handshake

    @Test("text and binary messages make the round trip; the request's fields reach the server")
    func echo() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(
                transport,
                server,
                fields: [
                    .authorization: "Bearer secret", .secWebSocketProtocol: "chat",
                    // The handshake's own fields, which the transport sets itself.
                    .secWebSocketKey: "bogus", .connection: "keep-alive", .secWebSocketExtensions: "permessage-deflate",
                ]
            )
            guard case let .upgraded(head) = await events.next() else {
                Issue.record("the server did not upgrade")
                return
            }
            #expect(head.headers["Authorization"] == ["Bearer secret"])
            #expect(head.headers["Sec-WebSocket-Protocol"] == ["chat"])
            #expect(head.headers["Host"] == ["127.0.0.1:\(server.port)"])
            #expect(head.headers["Sec-WebSocket-Key"].count == 1)
            #expect(head.headers["Sec-WebSocket-Key"] != ["bogus"])
            #expect(head.headers["Connection"].count == 1)
            #expect(head.headers["Sec-WebSocket-Extensions"].isEmpty)
            #expect(head.uri == "/socket?room=1")

            try await connection.send(.text("héllo"))
            #expect(await events.next() == .text("héllo"))
            #expect(try await connection.receive() == .message(.text("héllo")))

            let bytes = Data((0..<300).map { UInt8(truncatingIfNeeded: $0) })
            try await connection.send(.binary(bytes))
            #expect(await events.next() == .binary(Array(bytes)))
            #expect(try await connection.receive() == .message(.binary(bytes)))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a message the server sends right after the 101 arrives")
    func greeting() async throws {
        try await withServer(.webSocket(greeting: "welcome")) { server, transport in
            let connection = try await open(transport, server)
            #expect(try await connection.receive() == .message(.text("welcome")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a 401 comes back refused with its status and body")
    func refusedUnauthorized() async throws {
        try await withServer(.http(.unauthorized, body: "token expired")) { server, transport in
            let handshake = try await transport.openWebSocket(request(server), limits: WebSocketLimits())
            guard case let .refused(response, body) = handshake else {
                Issue.record("expected a refusal, got \(handshake)")
                return
            }
            #expect(response.status == .unauthorized)
            #expect(response.headerFields[.contentType] == "text/plain")
            #expect(String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self) == "token expired")
        }
    }

    @Test("a 200 from a server that does not speak WebSocket comes back refused")
    func refusedOK() async throws {
        try await withServer(.http(.ok, body: "<html>hello</html>")) { server, transport in
            var events = server.events.makeAsyncIterator()
            let handshake = try await transport.openWebSocket(
                request(server, fields: [.authorization: "Bearer secret"]),
                limits: WebSocketLimits()
            )
            guard case let .refused(response, body) = handshake else {
                Issue.record("expected a refusal, got \(handshake)")
                return
            }
            #expect(response.status == .ok)
            #expect(String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self) == "<html>hello</html>")
            guard case let .request(head) = await events.next() else {
                Issue.record("the server saw no request")
                return
            }
            #expect(head.headers["Authorization"] == ["Bearer secret"])
            #expect(head.headers["Upgrade"] == ["websocket"])
        }
    }

    @Test("a 101 with a wrong Sec-WebSocket-Accept comes back refused")
    func refusedBadAccept() async throws {
        let answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: d3Jvbmc=\r\n\r\n"
        try await withServer(.raw(answer)) { server, transport in
            let handshake = try await transport.openWebSocket(request(server), limits: WebSocketLimits())
            guard case let .refused(response, body) = handshake else {
                Issue.record("expected a refusal, got \(handshake)")
                return
            }
            #expect(response.status == .switchingProtocols)
            #expect(try await body.collect(upTo: 1 << 20).isEmpty)
        }
    }

    /// 101s that agree to what the request did not ask for.
    enum OverreachingUpgrade: String, CaseIterable, Sendable {
        case anExtension, aProtocolNoneOffered, aProtocolNotOffered, twoProtocols

        var offered: String? {
            switch self {
            case .anExtension, .aProtocolNoneOffered: nil
            case .aProtocolNotOffered, .twoProtocols: "chat, superchat"
            }
        }

        var answer: HTTPHeaders {
            switch self {
            case .anExtension: ["Sec-WebSocket-Extensions": "permessage-deflate"]
            case .aProtocolNoneOffered: ["Sec-WebSocket-Protocol": "chat"]
            case .aProtocolNotOffered: ["Sec-WebSocket-Protocol": "mqtt"]
            case .twoProtocols: ["Sec-WebSocket-Protocol": "chat", "sec-websocket-protocol": "superchat"]
            }
        }
    }

    @Test(
        "a 101 with an extension or a subprotocol the request did not offer comes back refused",
        arguments: OverreachingUpgrade.allCases
    )
    func refusedOverreachingUpgrade(_ upgrade: OverreachingUpgrade) async throws {
        try await withServer(.webSocket(fields: upgrade.answer)) { server, transport in
            var fields = HTTPFields()
            if let offered = upgrade.offered { fields[.secWebSocketProtocol] = offered }
            let handshake = try await transport.openWebSocket(
                request(server, fields: fields),
                limits: WebSocketLimits()
            )
            guard case let .refused(response, body) = handshake else {
                Issue.record("expected a refusal, got \(handshake)")
                return
            }
            #expect(response.status == .switchingProtocols)
            #expect(try await body.collect(upTo: 1 << 20).isEmpty)
        }
    }

    @Test("a 101 that names one of the subprotocols offered upgrades")
    func acceptedProtocol() async throws {
        try await withServer(.webSocket(fields: ["Sec-WebSocket-Protocol": "superchat"])) { server, transport in
            let connection = try await open(transport, server, fields: [.secWebSocketProtocol: "chat, superchat"])
            try await connection.send(.text("hi"))
            #expect(try await connection.receive() == .message(.text("hi")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test(
        "localhost connects to a server on 127.0.0.1 only, though ::1 is tried first",
        .enabled(if: localhostHasBothFamilies, "localhost does not resolve to both ::1 and 127.0.0.1 here")
    )
    func localhostBothFamilies() async throws {
        try await withServer { server, transport in
            let handshake = try await transport.openWebSocket(
                HTTPRequest(method: .get, scheme: "http", authority: "localhost:\(server.port)", path: "/"),
                limits: WebSocketLimits()
            )
            guard case let .upgraded(_, connection) = handshake else {
                Issue.record("expected an upgrade, got \(handshake)")
                return
            }
            try await connection.send(.text("hi"))
            #expect(try await connection.receive() == .message(.text("hi")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a host with an IPv6 address where nothing listens connects through its IPv4 address")
    func happyEyeballs() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let resolver = BothFamiliesResolver()
            let handshake = try await transport.openWebSocket(
                HTTPRequest(method: .get, scheme: "http", authority: "both.test:\(server.port)", path: "/"),
                limits: WebSocketLimits(),
                resolver: resolver
            )
            guard case let .upgraded(_, connection) = handshake else {
                Issue.record("expected an upgrade, got \(handshake)")
                return
            }
            #expect(resolver.askedForIPv6)
            #expect(await isUpgrade(events.next()))
            try await connection.send(.text("hi"))
            #expect(try await connection.receive() == .message(.text("hi")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a closed port fails with TransportFailure cannotConnect")
    func cannotConnect() async throws {
        let server = try await TestWebSocketServer.start()
        let port = server.port
        await server.stop()
        let transport = AsyncHTTPClientTransport()
        do {
            let handshake = try await transport.openWebSocket(
                HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/"),
                limits: WebSocketLimits()
            )
            Issue.record("expected a failure, got \(handshake)")
        } catch let failure as TransportFailure {
            guard case .cannotConnect = failure.reason else {
                Issue.record("expected cannotConnect, got \(failure.reason)")
                try await transport.shutdown()
                return
            }
        }
        try await transport.shutdown()
    }

    @Test("a request that is not http or https is refused before connecting")
    func badScheme() async throws {
        let transport = AsyncHTTPClientTransport()
        await #expect(throws: BaselineHTTP.HTTPClientError.self) {
            _ = try await transport.openWebSocket(
                HTTPRequest(method: .get, scheme: "ftp", authority: "127.0.0.1:1", path: "/"),
                limits: WebSocketLimits()
            )
        }
        try await transport.shutdown()
    }

    // MARK: Limits and bad input

    @Test("a frame over the limit fails with messageTooLarge and closes with 1009")
    func frameTooLarge() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server, limits: WebSocketLimits(maximumFrameSize: 1024))
            #expect(await isUpgrade(events.next()))
            try await server.send(
                WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(repeating: 7, count: 2000))
            )
            await #expect(throws: WebSocketError.messageTooLarge(limit: 1024)) { try await connection.receive() }
            #expect(await events.next() == .close(code: 1009, reason: ""))
            // The end stays.
            await #expect(throws: WebSocketError.messageTooLarge(limit: 1024)) { try await connection.receive() }
            await #expect(throws: WebSocketError.notConnected) { try await connection.send(.text("late")) }
        }
    }

    @Test("a message over the limit in fragments fails with messageTooLarge and closes with 1009")
    func fragmentedMessageTooLarge() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server, limits: WebSocketLimits(maximumMessageSize: 1000))
            #expect(await isUpgrade(events.next()))
            // One whole message under the limit, in fragments, goes through first.
            try await server.send(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "ab")))
            try await server.send(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(string: "cd")))
            #expect(try await connection.receive() == .message(.text("abcd")))
            for index in 0..<3 {
                try await server.send(
                    WebSocketFrame(
                        fin: index == 2,
                        opcode: index == 0 ? .binary : .continuation,
                        data: ByteBuffer(repeating: 1, count: 400)
                    )
                )
            }
            await #expect(throws: WebSocketError.messageTooLarge(limit: 1000)) { try await connection.receive() }
            #expect(await events.next() == .close(code: 1009, reason: ""))
        }
    }

    @Test("text that is not UTF-8 fails with invalidUTF8 and closes with 1007")
    func invalidUTF8() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            try await server.send(
                WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: [0x61, 0xC3, 0x28]))
            )
            await #expect(throws: WebSocketError.invalidUTF8) { try await connection.receive() }
            #expect(await events.next() == .close(code: 1007, reason: ""))
        }
    }

    @Test("text fragmented inside a character arrives whole")
    func fragmentSplitsCharacter() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            // "hé🙂": é is C3 A9, 🙂 is F0 9F 99 82; the frames cut both.
            try await server.send(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(bytes: [0x68, 0xC3])))
            try await server.send(
                WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer(bytes: [0xA9, 0xF0, 0x9F]))
            )
            try await server.send(
                WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(bytes: [0x99, 0x82]))
            )
            #expect(try await connection.receive() == .message(.text("hé🙂")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a frame after a broken one does not cut off the close frame still being written")
    func closeFrameOutlivesLaterErrors() async throws {
        // No echo: a client that closes with bytes unread resets the
        // connection, and the server loses what it had not read yet.
        try await withServer(.webSocket(echoes: false)) { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server, limits: WebSocketLimits(maximumFrameSize: 1024))
            #expect(await isUpgrade(events.next()))
            let watcher = try await ChannelWatcher.watch(connection)
            var watched = watcher.events.makeAsyncIterator()
            // The close frame will wait behind a message the server does not read yet.
            try await server.stopReading()
            let sending = Task { try await connection.send(.binary(Data(count: 2 << 20))) }
            #expect(await watched.next() == .unwritable)
            try await server.send(
                WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(repeating: 7, count: 2000))
            )
            await #expect(throws: WebSocketError.messageTooLarge(limit: 1024)) { try await connection.receive() }
            #expect(await watched.next() == .error)
            // Bytes after the broken frame: the decoder reports them as an error.
            try await server.sendText("more")
            #expect(await watched.next() == .error)
            // What backed up must reach the server well within the close's grace.
            try await watcher.restoreSendBuffer()
            try await server.resumeReading()
            var sawClose = false
            while let event = await events.next() {
                if case .binary = event { continue }
                sawClose = event == .close(code: 1009, reason: "")
                break
            }
            #expect(sawClose)
            _ = try? await sending.value
        }
    }

    /// Frames a server must not send.
    enum BrokenFrame: String, CaseIterable, Sendable {
        case masked, reservedBit, unknownOpcode, fragmentedPing, longPing, oneByteClose, invalidCloseCode
        case orphanContinuation, interleavedMessage

        var frames: [WebSocketFrame] {
            switch self {
            case .masked:
                [WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: "hi"))]
            case .reservedBit:
                [WebSocketFrame(fin: true, rsv1: true, opcode: .text, data: ByteBuffer(string: "hi"))]
            case .unknownOpcode:
                [WebSocketFrame(fin: true, opcode: WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, data: ByteBuffer())]
            case .fragmentedPing:
                [WebSocketFrame(fin: false, opcode: .ping, data: ByteBuffer(string: "hi"))]
            case .longPing:
                [WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(repeating: 0, count: 126))]
            case .oneByteClose:
                [WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: [3]))]
            case .invalidCloseCode:
                [WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: [0x03, 0xED]))]  // 1005
            case .orphanContinuation:
                [WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(string: "hi"))]
            case .interleavedMessage:
                [
                    WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "a")),
                    WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "b")),
                ]
            }
        }
    }

    @Test(
        "a frame that breaks the protocol fails with protocolViolation and closes with 1002",
        arguments: BrokenFrame.allCases
    )
    func protocolViolation(_ broken: BrokenFrame) async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            for frame in broken.frames { try await server.send(frame) }
            do {
                let event = try await connection.receive()
                Issue.record("expected a protocol violation, got \(event)")
            } catch let error as WebSocketError {
                guard case .protocolViolation = error else {
                    Issue.record("expected a protocol violation, got \(error)")
                    return
                }
            }
            #expect(await events.next() == .close(code: 1002, reason: ""))
        }
    }

    // MARK: Closing

    @Test("the server's close frame with a code and reason ends the connection with them")
    func serverCloses() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            try await server.sendText("last")
            try await server.sendClose(code: 4000, reason: "bye now")
            #expect(try await connection.receive() == .message(.text("last")))
            let closed = WebSocketEvent.closed(WebSocketCloseCode(rawValue: 4000), reason: "bye now")
            #expect(try await connection.receive() == closed)
            #expect(try await connection.receive() == closed)
            // The answer echoes the code.
            #expect(await events.next() == .close(code: 4000, reason: ""))
            #expect(await events.next() == .disconnected)
            await #expect(throws: WebSocketError.notConnected) { try await connection.send(.text("late")) }
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("an empty close frame ends the connection with no code")
    func serverClosesWithoutCode() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            try await server.sendClose(code: nil)
            #expect(try await connection.receive() == .closed(nil, reason: ""))
            #expect(await events.next() == .close(code: nil, reason: ""))
        }
    }

    @Test("a connection dropped without a close frame fails with connectionLost")
    func connectionLost() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            await server.dropConnection()
            do {
                let event = try await connection.receive()
                Issue.record("expected connectionLost, got \(event)")
            } catch let error as WebSocketError {
                guard case .connectionLost = error else {
                    Issue.record("expected connectionLost, got \(error)")
                    return
                }
            }
        }
    }

    @Test("close sends the code and reason, and ends the connection")
    func clientCloses() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            await connection.close(WebSocketCloseCode(rawValue: 4001), reason: "done for today")
            #expect(await events.next() == .close(code: 4001, reason: "done for today"))
            // The server's answer echoes the code. (On a starved machine the
            // 5 s grace can end the wait first; the event then carries our
            // own reason, so only the code is checked.)
            guard case let .closed(code, _) = try await connection.receive() else {
                Issue.record("expected the connection to end with a close")
                return
            }
            #expect(code == WebSocketCloseCode(rawValue: 4001))
            await #expect(throws: WebSocketError.notConnected) { try await connection.send(.text("late")) }
            await #expect(throws: WebSocketError.notConnected) { try await connection.ping() }
            // Again does nothing.
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("messages sent just before close all go out, in order, ahead of the close frame")
    func sendsBeforeCloseGoOutFirst() async throws {
        // No echoes: a client that closes with unread bytes in its socket
        // resets the connection, and the server loses what it had not read.
        // That happens when the 5 s closing grace runs out first, as it can
        // on a starved machine (the tests share two event loops).
        try await withServer(.webSocket(echoes: false)) { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            // Sends return once queued: these may all still wait for the loop.
            for index in 0..<200 { try await connection.send(.text("\(index)")) }
            await connection.close(.normalClosure, reason: "")
            for index in 0..<200 { #expect(await events.next() == .text("\(index)")) }
            #expect(await events.next() == .close(code: 1000, reason: ""))
            await #expect(throws: WebSocketError.notConnected) { try await connection.send(.text("late")) }
        }
    }

    @Test("a code that may not be sent goes out as 1000", arguments: [1005, 1006, 1015, 2000] as [UInt16])
    func closeWithReservedCode(rawValue: UInt16) async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            await connection.close(WebSocketCloseCode(rawValue: rawValue), reason: "bye")
            #expect(await events.next() == .close(code: 1000, reason: "bye"))
        }
    }

    @Test("close from a cancelled task still sends its close frame")
    func closeWhenCancelled() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                await connection.close(.goingAway, reason: "")
            }.value
            #expect(await events.next() == .close(code: 1001, reason: ""))
        }
    }

    @Test("a cancelled send to a server that stopped reading throws CancellationError and closes")
    func sendCancelled() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let watcher = try await ChannelWatcher.watch(connection)
            var watched = watcher.events.makeAsyncIterator()
            try await server.stopReading()
            // Far more than the shrunk sockets' buffers hold: the write cannot end.
            let sending = Task { try await connection.send(.binary(Data(count: 2 << 20))) }
            #expect(await watched.next() == .unwritable)
            sending.cancel()
            await #expect(throws: CancellationError.self) { try await sending.value }
            await #expect(throws: WebSocketError.notConnected) { try await connection.send(.text("late")) }
        }
    }

    @Test("a connection released without close closes its socket")
    func releasedConnectionCloses() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            do {
                let connection = try await open(transport, server)
                #expect(await isUpgrade(events.next()))
                try await connection.send(.text("hello"))
                #expect(await events.next() == .text("hello"))
            }
            #expect(await events.next() == .disconnected)
        }
    }

    @Test("a close reason is cut to 123 bytes on a character's boundary")
    func reasonTruncation() {
        let long = String(repeating: "é", count: 100)  // 200 bytes
        let cut = WebSocketClientHandler.truncated(long, toUTF8Bytes: 123)
        #expect(cut.utf8.count == 122)
        #expect(cut == String(repeating: "é", count: 61))
        #expect(WebSocketClientHandler.truncated("short", toUTF8Bytes: 123) == "short")
    }

    // MARK: Pings

    @Test("ping returns when the server's pong arrives; the server's pings are answered")
    func ping() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            try await connection.ping()
            guard case .ping = await events.next() else {
                Issue.record("the server saw no ping")
                return
            }
            try await connection.ping()
            _ = await events.next()
            try await server.send(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "are you there")))
            #expect(await events.next() == .pong(Array("are you there".utf8)))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a ping the server never answers waits until cancelled, and the connection stays open")
    func pingCancelled() async throws {
        try await withServer(.webSocket(answersPings: false)) { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let pinging = Task { try await connection.ping() }
            guard case .ping = await events.next() else {
                Issue.record("the server saw no ping")
                return
            }
            pinging.cancel()
            await #expect(throws: CancellationError.self) { try await pinging.value }
            try await connection.send(.text("still here"))
            #expect(try await connection.receive() == .message(.text("still here")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a ping the server never answers fails with notConnected when the connection closes")
    func pingEndsWithClose() async throws {
        try await withServer(.webSocket(answersPings: false)) { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let pinging = Task { try await connection.ping() }
            guard case .ping = await events.next() else {
                Issue.record("the server saw no ping")
                return
            }
            await connection.close(.goingAway, reason: "")
            await #expect(throws: WebSocketError.notConnected) { try await pinging.value }
        }
    }

    @Test("pings that come while the socket takes no more writes get one pong, not one each")
    func pongFlood() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let watcher = try await ChannelWatcher.watch(connection)
            var watched = watcher.events.makeAsyncIterator()
            try await server.stopReading()
            let sending = Task { try await connection.send(.binary(Data(count: 2 << 20))) }
            #expect(await watched.next() == .unwritable)
            var frames = (0..<1000).map { index in
                WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(integer: UInt16(index)))
            }
            frames.append(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "after the pings")))
            try await server.queue(frames)
            // The message behind the pings arrived: the pings were handled.
            #expect(try await connection.receive() == .message(.text("after the pings")))
            try await watcher.restoreSendBuffer()
            try await server.resumeReading()
            // The long message is out: the socket took writes again, and
            // the pong waiting for that went first.
            try await sending.value
            try await connection.send(.text("mark"))
            var pongs: [[UInt8]] = []
            while let event = await events.next(), event != .text("mark") {
                if case let .pong(payload) = event { pongs.append(payload) }
            }
            // Only the latest ping's answer.
            #expect(pongs == [[0x03, 0xE7]])
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("a ping's pong behind more messages than the inbox holds still arrives")
    func pingBehindFullInbox() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            // Three inboxes' worth, in reads of a few messages each: the pong
            // is queued behind them all.
            let count = WebSocketInbox.capacity * 3
            try await server.queue(
                (0..<count).map { index in
                    WebSocketFrame(
                        fin: true,
                        opcode: .text,
                        data: ByteBuffer(string: "\(index) " + String(repeating: "x", count: 4096))
                    )
                }
            )
            try await connection.ping()
            try await expectNumberedTexts(count, on: connection)
            await connection.close(.normalClosure, reason: "")
        }
    }

    // MARK: Receiving

    @Test("a cancelled receive throws CancellationError and leaves the connection open")
    func receiveCancelled() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let receiving = Task { try await connection.receive() }
            receiving.cancel()
            await #expect(throws: CancellationError.self) { try await receiving.value }
            try await connection.send(.text("after"))
            #expect(try await connection.receive() == .message(.text("after")))
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("messages beyond the inbox's capacity wait in the socket, and all arrive in order")
    func backPressure() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            // Far more than the inbox holds, and far less than the socket
            // buffers hold, so that every write completes with no reader.
            let count = WebSocketInbox.capacity * 3
            for index in 0..<count {
                try await server.sendText("\(index) " + String(repeating: "x", count: 1000))
            }
            try await expectNumberedTexts(count, on: connection)
            await connection.close(.normalClosure, reason: "")
        }
    }

    @Test("many large messages sent while the reader takes them all arrive, in order")
    func manyMessagesInOrder() async throws {
        try await withServer { server, transport in
            var events = server.events.makeAsyncIterator()
            let connection = try await open(transport, server)
            #expect(await isUpgrade(events.next()))
            let count = 200
            let payload = Data(repeating: 9, count: 32 * 1024)
            let sending = Task {
                for index in 0..<count {
                    var bytes = ByteBuffer(integer: UInt32(index))
                    bytes.writeBytes(payload)
                    try await server.send(WebSocketFrame(fin: true, opcode: .binary, data: bytes))
                }
            }
            for index in 0..<count {
                guard case let .message(.binary(data)) = try await connection.receive() else {
                    Issue.record("expected message \(index)")
                    return
                }
                let number = data.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                #expect(number == UInt32(index))
                #expect(data.count == 4 + payload.count)
            }
            try await sending.value
            await connection.close(.normalClosure, reason: "")
        }
    }

    // MARK: Helpers

    /// Receives `count` text messages, expecting each to start with its
    /// index and a space: "0 …", "1 …", in order.
    private func expectNumberedTexts(
        _ count: Int,
        on connection: any WebSocketConnection,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for index in 0..<count {
            guard case let .message(.text(text)) = try await connection.receive() else {
                Issue.record("expected message \(index)", sourceLocation: sourceLocation)
                return
            }
            #expect(text.hasPrefix("\(index) "), sourceLocation: sourceLocation)
        }
    }

    private func withServer(
        _ mode: TestWebSocketServer.Mode = .webSocket(),
        _ body: (TestWebSocketServer, AsyncHTTPClientTransport) async throws -> Void
    ) async throws {
        let server = try await TestWebSocketServer.start(mode)
        let transport = AsyncHTTPClientTransport()
        do {
            try await body(server, transport)
        } catch {
            await server.stop()
            try await transport.shutdown()
            throw error
        }
        await server.stop()
        try await transport.shutdown()
    }

    private func request(_ server: TestWebSocketServer, fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(
            method: .get,
            scheme: "http",
            authority: "127.0.0.1:\(server.port)",
            path: "/socket?room=1",
            headerFields: fields
        )
    }

    private func open(
        _ transport: AsyncHTTPClientTransport,
        _ server: TestWebSocketServer,
        fields: HTTPFields = [:],
        limits: WebSocketLimits = WebSocketLimits()
    ) async throws -> any WebSocketConnection {
        let handshake = try await transport.openWebSocket(request(server, fields: fields), limits: limits)
        guard case let .upgraded(response, connection) = handshake else {
            throw WebSocketError.unsupportedTransport("the server refused: \(handshake)")
        }
        #expect(response.status == .switchingProtocols)
        return connection
    }

    private func isUpgrade(_ event: Event?) -> Bool {
        if case .upgraded = event { return true }
        return false
    }
}

/// Whether `localhost` resolves to both ::1 and 127.0.0.1 here, for Happy
/// Eyeballs to try both.
private let localhostHasBothFamilies: Bool = {
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo("localhost", nil, nil, &list) == 0, let first = list else { return false }
    defer { freeaddrinfo(first) }
    var families = Set<Int32>()
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let current = entry {
        families.insert(current.pointee.ai_family)
        entry = current.pointee.ai_next
    }
    return families.contains(AF_INET) && families.contains(AF_INET6)
}()

/// Gives every host ::1 and 127.0.0.1, as many systems do for `localhost`:
/// the IPv6 address, tried first, has nothing listening on it.
private final class BothFamiliesResolver: Resolver, Sendable {
    private let askedIPv6 = LockedValue(false)

    var askedForIPv6: Bool { askedIPv6.current }

    func initiateAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        MultiThreadedEventLoopGroup.singleton.next().makeCompletedFuture {
            [try SocketAddress(ipAddress: "127.0.0.1", port: port)]
        }
    }

    func initiateAAAAQuery(host: String, port: Int) -> EventLoopFuture<[SocketAddress]> {
        askedIPv6.withLock { $0 = true }
        return MultiThreadedEventLoopGroup.singleton.next().makeCompletedFuture {
            [try SocketAddress(ipAddress: "::1", port: port)]
        }
    }

    func cancelQueries() {}
}

/// Reports what the client's WebSocket handler is told, from just before it:
/// the channel becoming unwritable, and errors. It shrinks the socket's
/// send buffer too, so that a server that stops reading stops the client's
/// writes after a few hundred KiB at most.
private final class ChannelWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame

    enum Event: Sendable, Equatable {
        case unwritable
        case error
    }

    let events: AsyncStream<Event>
    private let report: AsyncStream<Event>.Continuation
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
        (events, report) = AsyncStream.makeStream(of: Event.self)
    }

    /// Gives the socket a send buffer large enough again for what backed up to go fast.
    func restoreSendBuffer() async throws {
        try await channel.setOption(.socketOption(.so_sndbuf), value: 1 << 20).get()
    }

    /// A watcher in place on `connection`'s channel.
    static func watch(_ connection: any WebSocketConnection) async throws -> ChannelWatcher {
        let channel = try #require(connection as? NIOWebSocketConnection).channel
        let watcher = ChannelWatcher(channel: channel)
        try await channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(watcher, position: .before(pipeline.handler(type: WebSocketClientHandler.self)))
        }.get()
        try await channel.setOption(.socketOption(.so_sndbuf), value: 4096).get()
        return watcher
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable { report.yield(.unwritable) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        report.yield(.error)
        context.fireErrorCaught(error)
    }
}
