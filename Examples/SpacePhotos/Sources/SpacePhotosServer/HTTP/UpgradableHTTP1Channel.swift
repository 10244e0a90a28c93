import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// HTTP/1 connections that may upgrade to WebSocket (hummingbird-websocket's
/// channel), with the idle timeout before the first request that plain HTTP/1
/// connections have.
///
/// hummingbird-websocket starts its idle timer only once a first request has
/// been read, so a connection that sends nothing, or half a request head,
/// would hold its socket until the client left. Here a timer runs from the
/// start until the first request head is read or the upgrade is done; when
/// it fires, or when the server starts shutting down first, the connection
/// is closed. After the first request, Hummingbird's own idle timeout
/// applies to HTTP, and pings keep WebSockets honest.
struct UpgradableHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    /// How long a new connection may take to send its first request head.
    let firstRequestTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Last in the pipeline: after the upgrade handler, which passes
            // on the first request, or announces the upgrade, when it is done.
            try channel.pipeline.syncOperations.addHandler(FirstRequestTimer(timeout: firstRequestTimeout))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withGracefulShutdownHandler {
            await base.handle(value: value, logger: logger)
        } onGracefulShutdown: {
            // A connection still waiting for its first request would hold
            // the shutdown up until its timer fired: close it now.
            channel.eventLoop.execute {
                try? channel.pipeline.syncOperations.handler(type: FirstRequestTimer.self).expire(channel)
            }
        }
    }
}

/// Closes the connection unless a first request head, or a finished
/// upgrade, comes through within the timeout; then steps aside.
final class FirstRequestTimer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The upgrade handler passes requests on only once it has decided
        // against an upgrade: from here on, HTTP's own idle timeout applies.
        context.fireChannelRead(data)
        stepAside(context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let upgraded = event is HTTPServerUpgradeEvents
        context.fireUserInboundEventTriggered(event)
        if upgraded { stepAside(context) }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let channel = context.channel
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            expire(channel)
        }
    }

    private func stepAside(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Ends a connection that has not sent a first request. Called on the
    /// channel's event loop.
    func expire(_ channel: any Channel) {
        deadline?.cancel()
        deadline = nil
        // Told that the input has closed, the upgrade handler closes the
        // connection and reports it as such, which hummingbird-websocket
        // takes quietly; a plain close would be logged as a failed upgrade.
        let pipeline = channel.pipeline.syncOperations
        if let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            decoder.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        } else {
            channel.close(promise: nil)
        }
    }
}
