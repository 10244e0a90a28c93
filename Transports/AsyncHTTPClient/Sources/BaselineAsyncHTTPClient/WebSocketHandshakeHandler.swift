import Foundation
import NIOCore
import NIOHTTP1

/// How a WebSocket opening handshake ended, on the event loop.
enum WebSocketHandshakeOutcome: Sendable {
    /// 101 with the checks passed: the connection, its handler in place.
    case upgraded(HTTPResponseHead, NIOWebSocketConnection)
    /// Any other answer, with the start of its body.
    case refused(HTTPResponseHead, ByteBuffer)
}

/// Watches the handshake's response between NIO's HTTP decoder and its
/// upgrade handler, to keep what the upgrade handler drops: the head of a
/// 101 it denies (a wrong `Sec-WebSocket-Accept`), and the head and body
/// (up to ``bodyLimit``) of any other status. It completes the outcome for
/// a refusal and for failures before the upgrade; the upgrader completes it
/// for a success, and removes this handler with the HTTP ones.
///
/// It also makes the checks of a 101 that NIO's upgrader leaves out (RFC
/// 6455 section 4.1): no extension, as none was asked for, and no
/// subprotocol but one the request offered. A 101 that fails them is a
/// refusal, and never reaches the upgrade handler.
final class WebSocketHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// How much of a refusal's body is kept: enough for an error document.
    static let bodyLimit = 64 * 1024

    private let offeredProtocols: Set<String>
    private let outcome: EventLoopPromise<WebSocketHandshakeOutcome>
    private var head: HTTPResponseHead?
    /// A refusal's body so far; nil for a 101 or before the head.
    private var body: ByteBuffer?
    /// Set once a 101 failed the checks: the rest of the response goes nowhere.
    private var refusedUpgrade = false

    init(offeredProtocols: Set<String>, outcome: EventLoopPromise<WebSocketHandshakeOutcome>) {
        self.offeredProtocols = offeredProtocols
        self.outcome = outcome
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusedUpgrade else { return }
        switch unwrapInboundIn(data) {
        case let .head(head):
            if self.head == nil {
                self.head = head
                if head.status != .switchingProtocols {
                    body = context.channel.allocator.buffer(capacity: 0)
                } else if !isAcceptable(head) {
                    refusedUpgrade = true
                    return refuse(context: context)
                }
            }
        case var .body(chunk):
            if var collected = body {
                body = nil
                let room = Self.bodyLimit - collected.readableBytes
                if let part = chunk.readSlice(length: min(room, chunk.readableBytes)) {
                    collected.writeImmutableBuffer(part)
                }
                body = collected
                if collected.readableBytes >= Self.bodyLimit { refuse(context: context) }
            }
        case .end:
            if body != nil { refuse(context: context) }
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.fail(error)
        context.close(promise: nil)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A body that runs to the end of the connection ends here.
        if body != nil {
            refuse(context: context)
        } else {
            outcome.fail(ChannelError.eof)
        }
        context.fireChannelInactive()
    }

    /// The upgrade handler gave up: a 101 that failed its checks is a
    /// refusal like any other status; anything else a failure.
    func upgradeFailed(_ error: any Error, channel: any Channel) {
        if let head {
            outcome.succeed(.refused(head, body ?? channel.allocator.buffer(capacity: 0)))
        } else {
            outcome.fail(error)
        }
        channel.close(promise: nil)
    }

    /// Whether a 101 agrees only to what the request asked for: no
    /// extension, and one of the subprotocols offered or none.
    private func isAcceptable(_ head: HTTPResponseHead) -> Bool {
        let extensions = head.headers["Sec-WebSocket-Extensions"]
        guard extensions.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return false }
        let protocols = head.headers["Sec-WebSocket-Protocol"]
        switch protocols.count {
        case 0: return true
        case 1: return offeredProtocols.contains(protocols[0].trimmingCharacters(in: .whitespaces))
        default: return false
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        guard let head else { return }
        outcome.succeed(.refused(head, body ?? context.channel.allocator.buffer(capacity: 0)))
        // The connection carried one answer; nothing else will use it.
        context.close(promise: nil)
    }
}
