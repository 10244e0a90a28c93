import BaselineHTTP
import Foundation
import NIOCore
import NIOWebSocket

/// The WebSocket protocol (RFC 6455) on an upgraded channel, client side:
/// assembles messages and checks them against the limits, answers pings
/// and close frames, runs the closing handshake, and holds the socket's
/// reads while the ``WebSocketInbox`` is full. Lives on the channel's event
/// loop; ``NIOWebSocketConnection`` reaches it there.
///
/// Every frame it sends is masked with a random key, as a client's must be.
final class WebSocketClientHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long a closing connection waits for the peer (its close frame,
    /// or a close frame of ours to be written) before it closes the socket.
    static let closingGrace: TimeAmount = .seconds(5)

    private enum Phase {
        /// Messages flow both ways.
        case open
        /// We sent a close frame (with this code and reason) and wait for the peer's.
        case closeSent(WebSocketCloseCode?, reason: String)
        /// The end is known (the peer's close frame, or a failure); the
        /// socket closes once our last frame is out. Frames are ignored.
        case ending
        /// The channel is closed.
        case closed
    }

    let inbox: WebSocketInbox
    let outbox = WebSocketOutbox()
    private let frameLimit: Int
    private let messageLimit: Int
    private var phase = Phase.open {
        didSet {
            // Data frames go out only while open; any other phase ends sends.
            if case .open = phase { return }
            outbox.close(droppingQueued: true)
        }
    }
    private var context: ChannelHandlerContext?
    /// The message being assembled from fragments: whether it is text, and its bytes so far.
    private var fragments: (isText: Bool, bytes: ByteBuffer)?
    /// Whether a `read()` is held back because the inbox is full.
    private var readHeld = false
    /// The payload of the latest ping that came while the channel was not
    /// writable, answered once it is: only the latest needs an answer (RFC
    /// 6455 section 5.5.3), so a peer that pings and never reads cannot
    /// make our pongs pile up. (Reads go on: holding them while our writes
    /// wait could deadlock with a peer that does the same.)
    private var pendingPong: ByteBuffer?
    private var grace: Scheduled<Void>?

    init(limits: WebSocketLimits, inbox: WebSocketInbox) {
        self.inbox = inbox
        frameLimit = limits.maximumFrameSize
        // A negative limit takes nothing, and keeps the sums below from overflowing.
        messageLimit = max(0, limits.maximumMessageSize)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        outbox.setWritable(context.channel.isWritable)
        // Added by the upgrade, which can finish after the socket closed.
        if !context.channel.isActive { channelClosed() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        channelClosed()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        channelClosed()
        context.fireChannelInactive()
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch phase {
        case .open, .closeSent: break
        case .ending, .closed: return
        }
        guard frame.maskKey == nil else {
            return fail(.protocolViolation("the server sent a masked frame"), code: .protocolError)
        }
        // No extension is ever agreed, so no reserved bit may be set.
        guard frame.reservedBits.isEmpty else {
            return fail(.protocolViolation("a frame had reserved bits set"), code: .protocolError)
        }
        switch frame.opcode {
        case .text, .binary, .continuation:
            dataFrame(frame)
        case .ping:
            guard case .open = phase else { return }
            if context.channel.isWritable {
                write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.data), promise: nil)
            } else {
                pendingPong = frame.data
            }
        case .pong:
            var payload = frame.data
            if payload.readableBytes == 8, let id = payload.readInteger(as: UInt64.self) {
                inbox.pongArrived(id: id)
            }
        case .connectionClose:
            peerClosed(frame)
        default:
            fail(.protocolViolation("unknown opcode \(UInt8(webSocketOpcode: frame.opcode))"), code: .protocolError)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            fail(.messageTooLarge(limit: frameLimit), code: .messageTooBig)
        case NIOWebSocketError.fragmentedControlFrame:
            fail(.protocolViolation("a fragmented control frame"), code: .protocolError)
        case NIOWebSocketError.multiByteControlFrameLength:
            fail(.protocolViolation("a control frame longer than 125 bytes"), code: .protocolError)
        default:
            switch phase {
            case .open:
                inbox.finish(.failed(.connectionLost(TransportErrorMapping.detail(of: error))))
                phase = .ending
            case let .closeSent(code, reason):
                inbox.finish(.closed(code, reason: reason))
                phase = .ending
            case .ending, .closed:
                // After a failure the decoder reports every later read as
                // an error; closing now could cut off our close frame, still
                // being written. The close path closes (its grace at worst).
                return
            }
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        outbox.setWritable(context.channel.isWritable)
        if context.channel.isWritable {
            if let payload = pendingPong {
                pendingPong = nil
                if case .open = phase {
                    write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload), promise: nil)
                }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func dataFrame(_ frame: WebSocketFrame) {
        var data = frame.data
        if frame.opcode == .continuation {
            guard var message = fragments else {
                return fail(
                    .protocolViolation("a continuation frame with no message to continue"),
                    code: .protocolError
                )
            }
            fragments = nil
            // `message.bytes` never exceeds the limit, so the difference cannot overflow.
            guard data.readableBytes <= messageLimit - message.bytes.readableBytes else {
                return fail(.messageTooLarge(limit: messageLimit), code: .messageTooBig)
            }
            message.bytes.writeBuffer(&data)
            if frame.fin {
                deliver(isText: message.isText, message.bytes)
            } else {
                fragments = message
            }
        } else {
            guard fragments == nil else {
                return fail(.protocolViolation("a new message began before the last one ended"), code: .protocolError)
            }
            guard data.readableBytes <= messageLimit else {
                return fail(.messageTooLarge(limit: messageLimit), code: .messageTooBig)
            }
            if frame.fin {
                deliver(isText: frame.opcode == .text, data)
            } else {
                fragments = (frame.opcode == .text, data)
            }
        }
    }

    private func deliver(isText: Bool, _ bytes: ByteBuffer) {
        let message: WebSocketMessage
        if isText {
            guard let text = Self.validUTF8(bytes) else {
                return fail(.invalidUTF8, code: .invalidFramePayloadData)
            }
            message = .text(text)
        } else {
            message = .binary(bytes.withUnsafeReadableBytes { Data($0) })
        }
        if case .closeSent = phase {
            inbox.deliver(message, droppingWhenFull: true)
        } else {
            inbox.deliver(message, droppingWhenFull: false)
        }
    }

    private func peerClosed(_ frame: WebSocketFrame) {
        var payload = frame.data
        var code: WebSocketCloseCode?
        var reason = ""
        if payload.readableBytes > 0 {
            guard let raw = payload.readInteger(as: UInt16.self) else {
                return fail(.protocolViolation("a close frame with a 1-byte payload"), code: .protocolError)
            }
            guard Self.isValidReceivedCode(raw) else {
                return fail(.protocolViolation("close code \(raw)"), code: .protocolError)
            }
            guard let text = Self.validUTF8(payload) else {
                return fail(.invalidUTF8, code: .invalidFramePayloadData)
            }
            code = WebSocketCloseCode(rawValue: raw)
            reason = text
        }
        switch phase {
        case .open:
            inbox.finish(.closed(code, reason: reason))
            phase = .ending
            // The answer echoes the code (RFC 6455 section 5.5.1), then the socket closes.
            sendCloseFrameAndClose(code: code)
        case .closeSent:
            // The answer to ours: the handshake is complete.
            inbox.finish(.closed(code, reason: reason))
            phase = .ending
            context?.close(promise: nil)
        case .ending, .closed:
            break
        }
    }

    /// Fails the connection (RFC 6455 section 7.1.7): the reader gets
    /// `error`, the peer a close frame with `code` unless we sent ours already.
    private func fail(_ error: WebSocketError, code: WebSocketCloseCode) {
        fragments = nil
        switch phase {
        case .open:
            inbox.finish(.failed(error))
            phase = .ending
            sendCloseFrameAndClose(code: code)
        case .closeSent:
            inbox.finish(.failed(error))
            phase = .ending
            context?.close(promise: nil)
        case .ending, .closed:
            break
        }
    }

    private func sendCloseFrameAndClose(code: WebSocketCloseCode?) {
        guard let context else { return }
        let channel = context.channel
        let frame = Self.closeFrame(code: code, reason: "", allocator: channel.allocator)
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        write(frame, promise: promise)
        startGrace()
    }

    private func channelClosed() {
        switch phase {
        case .open:
            inbox.finish(.failed(.connectionLost("the server closed the connection without a close frame")))
        case let .closeSent(code, reason):
            inbox.finish(.closed(code, reason: reason))
        case .ending, .closed:
            break
        }
        phase = .closed
        fragments = nil
        pendingPong = nil
        grace?.cancel()
        grace = nil
    }

    // MARK: Outbound

    func read(context: ChannelHandlerContext) {
        if case .open = phase, inbox.holdReadingIfFull() {
            readHeld = true
            return
        }
        context.read()
    }

    /// Lets a held read through if the inbox no longer holds it: the reader
    /// took messages from it, a ping waits for its pong, or the connection
    /// is closing.
    func resumeReading() {
        guard readHeld, let context else { return }
        readHeld = false
        read(context: context)
    }

    /// Writes the data frames senders queued in the ``outbox``, with one
    /// flush; they are dropped once the connection is no longer open.
    func drainOutbox() {
        let frames = outbox.takeFrames()
        defer { outbox.drained(isWritable: context?.channel.isWritable ?? false) }
        guard case .open = phase, let context, !frames.isEmpty else { return }
        for frame in frames {
            context.write(wrapOutboundOut(frame), promise: nil)
        }
        context.flush()
    }

    /// Sends a ping whose payload is `id`, for ``WebSocketInbox/pongArrived(id:)`` to match.
    func sendPing(id: UInt64) {
        guard case .open = phase, let context else {
            return inbox.failPing(id: id, with: WebSocketError.notConnected)
        }
        var payload = context.channel.allocator.buffer(capacity: 8)
        payload.writeInteger(id)
        let promise = context.eventLoop.makePromise(of: Void.self)
        let inbox = inbox
        promise.futureResult.whenFailure { _ in inbox.failPing(id: id, with: WebSocketError.notConnected) }
        write(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: payload), promise: promise)
        // The pong may be behind messages the reader has not taken yet:
        // the inbox takes more of them while a ping waits.
        resumeReading()
    }

    /// Starts the closing handshake; the socket closes when the peer
    /// answers or after ``closingGrace``. Does nothing unless open.
    func startClose(code: WebSocketCloseCode, reason: String) {
        guard case .open = phase, let context else { return }
        // 1005, 1006 and 1015 only report: send 1000, as WebSocketConnection asks.
        let sentCode = code.canBeSent ? code : .normalClosure
        let sentReason = Self.truncated(reason, toUTF8Bytes: 123)
        phase = .closeSent(sentCode, reason: sentReason)
        fragments = nil
        write(Self.closeFrame(code: sentCode, reason: sentReason, allocator: context.channel.allocator), promise: nil)
        startGrace()
        // The peer's close frame may be behind messages the reader will not
        // take now: read on, dropping what the inbox has no room for.
        resumeReading()
    }

    private func write(_ frame: WebSocketFrame, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(WebSocketError.notConnected)
            return
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
    }

    private func startGrace() {
        guard grace == nil, let context else { return }
        let channel = context.channel
        grace = context.eventLoop.scheduleTask(in: Self.closingGrace) { channel.close(promise: nil) }
    }

    // MARK: Helpers

    static func closeFrame(code: WebSocketCloseCode?, reason: String, allocator: ByteBufferAllocator) -> WebSocketFrame
    {
        var payload = allocator.buffer(capacity: code == nil ? 0 : 2 + reason.utf8.count)
        if let code {
            payload.writeInteger(code.rawValue)
            payload.writeString(reason)
        }
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: payload)
    }

    /// The longest start of `text` of at most `limit` bytes of UTF-8 that
    /// ends on a scalar's boundary.
    static func truncated(_ text: String, toUTF8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var count = 0
        var end = text.unicodeScalars.startIndex
        for index in text.unicodeScalars.indices {
            let length = UTF8.width(text.unicodeScalars[index])
            guard count + length <= limit else { break }
            count += length
            end = text.unicodeScalars.index(after: index)
        }
        return String(text.unicodeScalars[..<end])
    }

    /// The codes a close frame may carry (RFC 6455 section 7.4 and the IANA
    /// registry): 1000–1003, 1007–1014 and 3000–4999.
    static func isValidReceivedCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The bytes as a string if they are valid UTF-8: decoding replaces
    /// each bad sequence, so the decoded text has the same bytes only when
    /// there was none.
    static func validUTF8(_ bytes: ByteBuffer) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            // One pass that validates as it copies.
            return String(validating: bytes.readableBytesView, as: UTF8.self)
        }
        let text = String(buffer: bytes)
        return text.utf8.elementsEqual(bytes.readableBytesView) ? text : nil
    }
}
