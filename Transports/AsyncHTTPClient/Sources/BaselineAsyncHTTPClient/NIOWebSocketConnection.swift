import BaselineConcurrency
import BaselineHTTP
import Foundation
import NIOCore
import NIOWebSocket

/// A WebSocket connection on a SwiftNIO channel: what
/// ``AsyncHTTPClientTransport/openWebSocket(_:limits:)`` returns once the
/// server switched protocols.
///
/// The protocol runs in a ``WebSocketClientHandler`` on the channel's
/// event loop; this object hands it work and waits for what it delivers
/// through a ``WebSocketInbox``. Releasing the connection closes its
/// socket, so one dropped without `close` leaks nothing.
final class NIOWebSocketConnection: WebSocketConnection {
    /// The upgraded channel; internal for tests to watch it.
    let channel: any Channel
    private let handler: NIOLoopBound<WebSocketClientHandler>
    private let inbox: WebSocketInbox
    private let outbox: WebSocketOutbox

    /// Must be called on the channel's event loop, where `handler` lives.
    init(channel: any Channel, handler: WebSocketClientHandler) {
        self.channel = channel
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        inbox = handler.inbox
        outbox = handler.outbox
    }

    deinit {
        channel.close(promise: nil)
    }

    func receive() async throws -> WebSocketEvent {
        if let ready = inbox.next(orRegister: nil) { return try take(ready) }
        let id = inbox.makeID()
        let inbox = inbox
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let ready = inbox.next(orRegister: (id, continuation)) {
                    continuation.resume(with: Result { try take(ready) })
                }
            }
        } onCancel: {
            inbox.cancelReceive(id: id)
        }
    }

    private func take(_ ready: WebSocketInbox.Ready) throws -> WebSocketEvent {
        if ready.resumesReading {
            let handler = handler
            channel.eventLoop.execute { handler.value.resumeReading() }
        }
        return try ready.result.get()
    }

    func send(_ message: WebSocketMessage) async throws {
        let opcode: WebSocketOpcode
        let bytes: ByteBuffer
        switch message {
        case let .text(text):
            opcode = .text
            bytes = ByteBuffer(string: text)
        case let .binary(data):
            opcode = .binary
            bytes = ByteBuffer(bytes: data)
        }
        try Task.checkCancellation()
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: bytes)
        let queued = try outbox.enqueue(frame)
        if queued.schedulesDrain {
            let handler = handler
            channel.eventLoop.execute { handler.value.drainOutbox() }
        }
        guard queued.mustWait else { return }
        // The peer stopped reading, or the loop is behind: wait for room.
        let channel = channel
        try await outbox.waitForRoom {
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    func ping() async throws {
        let id = inbox.makeID()
        let inbox = inbox
        let handler = handler
        let eventLoop = channel.eventLoop
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard inbox.addPing(id: id, continuation) else { return }
                eventLoop.execute { handler.value.sendPing(id: id) }
            }
        } onCancel: {
            inbox.failPing(id: id, with: CancellationError())
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        // Sends after this fail; those queued before it go out first.
        outbox.close(droppingQueued: false)
        let handler = handler
        let channel = channel
        // Started before the cancellation handler, which runs at once in a
        // task cancelled already: the loop writes the close frame before it
        // runs the close queued after it, so the peer learns why.
        channel.eventLoop.execute { handler.value.startClose(code: code, reason: reason) }
        await withTaskCancellationHandler {
            // The handler closes the channel when the peer answers, or after
            // its grace period: this wait is bounded.
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }
}
