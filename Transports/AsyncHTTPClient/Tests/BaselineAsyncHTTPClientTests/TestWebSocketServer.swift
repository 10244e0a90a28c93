import BaselineConcurrency
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket server on 127.0.0.1 for the tests: it upgrades (or, in the
/// other modes, answers plain HTTP or with fixed bytes), reports everything
/// it receives through ``events``, echoes messages, and sends whatever
/// frames a test gives it, broken ones included.
final class TestWebSocketServer: Sendable {
    enum Mode: Sendable {
        /// Upgrades every request; answers pings and echoes messages unless
        /// told not to, sends `greeting` in the same write as the 101, so
        /// that the client reads both at once, and adds `fields` to the 101.
        case webSocket(
            answersPings: Bool = true,
            echoes: Bool = true,
            greeting: String? = nil,
            fields: HTTPHeaders = HTTPHeaders()
        )
        /// Answers every request with this status and body, never upgrading.
        case http(HTTPResponseStatus, body: String)
        /// Answers the first request's head with these bytes as they are.
        case raw(String)
    }

    enum Event: Sendable, Equatable {
        case upgraded(HTTPRequestHead)
        case request(HTTPRequestHead)
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// A close frame: its code (nil when empty) and reason.
        case close(code: UInt16?, reason: String)
        case disconnected
        /// A frame from the client without a mask.
        case unmaskedFrame
    }

    let port: Int
    /// What the server received, in order.
    let events: AsyncStream<Event>
    private let report: AsyncStream<Event>.Continuation
    private let listener: any Channel
    private let peer: LockedValue<(any Channel)?>

    private init(
        port: Int,
        events: AsyncStream<Event>,
        report: AsyncStream<Event>.Continuation,
        listener: any Channel,
        peer: LockedValue<(any Channel)?>
    ) {
        self.port = port
        self.events = events
        self.report = report
        self.listener = listener
        self.peer = peer
    }

    static func start(_ mode: Mode = .webSocket()) async throws -> TestWebSocketServer {
        let (events, report) = AsyncStream.makeStream(of: Event.self)
        let peer = LockedValue<(any Channel)?>(nil)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configure(channel, mode: mode, report: report, peer: peer)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = listener.localAddress?.port else { throw ChannelError.unknownLocalAddress }
        return TestWebSocketServer(port: port, events: events, report: report, listener: listener, peer: peer)
    }

    private static func configure(
        _ channel: any Channel,
        mode: Mode,
        report: AsyncStream<Event>.Continuation,
        peer: LockedValue<(any Channel)?>
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        switch mode {
        case let .webSocket(answersPings, echoes, greeting, fields):
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 24,
                automaticErrorHandling: false,
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(fields) },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ServerFrameHandler(answersPings: answersPings, echoes: echoes, report: report)
                        )
                        peer.withLock { $0 = channel }
                        report.yield(.upgraded(head))
                        if let greeting {
                            channel.write(
                                WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: greeting)),
                                promise: nil
                            )
                            try channel.pipeline.syncOperations.handler(type: WriteCoalescer.self).release()
                        }
                    }
                }
            )
            if greeting != nil { try pipeline.addHandler(WriteCoalescer()) }
            try pipeline.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
            )
        case let .http(status, body):
            try pipeline.configureHTTPServerPipeline()
            try pipeline.addHandler(PlainResponder(status: status, body: body, report: report))
        case let .raw(answer):
            try pipeline.addHandler(RawResponder(answer: answer))
        }
    }

    /// Sends `frame` to the upgraded client as it is (a server's frames go unmasked unless it has a key).
    func send(_ frame: WebSocketFrame) async throws {
        guard let channel = peer.current else { throw ChannelError.ioOnClosedChannel }
        try await channel.writeAndFlush(frame)
    }

    /// Queues `frames` on the connection and flushes them, returning once
    /// they are queued, before they are written: whatever the server sends
    /// after (a pong) goes behind them.
    func queue(_ frames: [WebSocketFrame]) async throws {
        guard let channel = peer.current else { throw ChannelError.ioOnClosedChannel }
        try await channel.eventLoop.submit {
            for frame in frames { channel.write(frame, promise: nil) }
            channel.flush()
        }.get()
    }

    /// Stops reading the upgraded connection, so that the client's writes
    /// back up (after at most one more read).
    func stopReading() async throws {
        guard let channel = peer.current else { throw ChannelError.ioOnClosedChannel }
        try await channel.setOption(.autoRead, value: false).get()
    }

    /// Reads the upgraded connection again after ``stopReading()``.
    func resumeReading() async throws {
        guard let channel = peer.current else { throw ChannelError.ioOnClosedChannel }
        try await channel.setOption(.autoRead, value: true).get()
        channel.read()
    }

    func sendText(_ text: String) async throws {
        try await send(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
    }

    /// Sends a close frame with `code` and `reason`, or an empty one when `code` is nil.
    func sendClose(code: UInt16?, reason: String = "") async throws {
        var payload = ByteBuffer()
        if let code {
            payload.writeInteger(code)
            payload.writeString(reason)
        }
        try await send(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
    }

    /// Closes the TCP connection without a close frame.
    func dropConnection() async {
        try? await peer.current?.close()
    }

    func stop() async {
        try? await peer.current?.close()
        try? await listener.close()
        report.finish()
    }
}

/// The server's side of an upgraded connection.
private final class ServerFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let answersPings: Bool
    private let echoes: Bool
    private let report: AsyncStream<TestWebSocketServer.Event>.Continuation
    private var fragments: (opcode: WebSocketOpcode, bytes: ByteBuffer)?
    private var sentClose = false

    init(answersPings: Bool, echoes: Bool, report: AsyncStream<TestWebSocketServer.Event>.Continuation) {
        self.answersPings = answersPings
        self.echoes = echoes
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // A client's frames must be masked (RFC 6455 section 5.3).
        guard frame.maskKey != nil else {
            report.yield(.unmaskedFrame)
            return
        }
        var payload = frame.unmaskedData
        switch frame.opcode {
        case .text, .binary:
            if frame.fin {
                message(frame.opcode, payload, context: context)
            } else {
                fragments = (frame.opcode, payload)
            }
        case .continuation:
            guard var message = fragments else { return }
            message.bytes.writeBuffer(&payload)
            if frame.fin {
                fragments = nil
                self.message(message.opcode, message.bytes, context: context)
            } else {
                fragments = message
            }
        case .ping:
            report.yield(.ping(Array(payload.readableBytesView)))
            if answersPings {
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)),
                    promise: nil
                )
            }
        case .pong:
            report.yield(.pong(Array(payload.readableBytesView)))
        case .connectionClose:
            let code = payload.readInteger(as: UInt16.self)
            report.yield(.close(code: code, reason: String(buffer: payload)))
            if sentClose {
                context.close(promise: nil)
            } else {
                var answer = context.channel.allocator.buffer(capacity: 2)
                if let code { answer.writeInteger(code) }
                let channel = context.channel
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer))
                ).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    private func message(_ opcode: WebSocketOpcode, _ bytes: ByteBuffer, context: ChannelHandlerContext) {
        report.yield(opcode == .text ? .text(String(buffer: bytes)) : .binary(Array(bytes.readableBytesView)))
        guard echoes else { return }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: bytes)), promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { sentClose = true }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        report.yield(.disconnected)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Answers every request with one status and body.
private final class PlainResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let status: HTTPResponseStatus
    private let body: String
    private let report: AsyncStream<TestWebSocketServer.Event>.Continuation

    init(status: HTTPResponseStatus, body: String, report: AsyncStream<TestWebSocketServer.Event>.Continuation) {
        self.status = status
        self.body = body
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            report.yield(.request(head))
        case .body:
            break
        case .end:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            headers.add(name: "Content-Type", value: "text/plain")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// Answers the end of the first request head with fixed bytes.
private final class RawResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: String
    private var received = ""
    private var answered = false

    init(answer: String) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received += String(buffer: unwrapInboundIn(data))
        if received.contains("\r\n\r\n") {
            answered = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        }
    }
}

/// Holds every write, completing it at once, until ``release()`` sends all
/// of them as one: the 101 and the frame after it in one TCP segment.
private final class WriteCoalescer: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var held: ByteBuffer? = ByteBuffer()
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard var buffer = held, case var .byteBuffer(bytes) = unwrapOutboundIn(data) else {
            return context.write(data, promise: promise)
        }
        buffer.writeBuffer(&bytes)
        held = buffer
        promise?.succeed()
    }

    func flush(context: ChannelHandlerContext) {
        if held == nil { context.flush() }
    }

    func release() {
        guard let buffer = held, let context else { return }
        held = nil
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
    }
}
