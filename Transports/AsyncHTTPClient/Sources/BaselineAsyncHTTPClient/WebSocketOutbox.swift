import BaselineConcurrency
import BaselineHTTP
import NIOCore
import NIOWebSocket

/// The frames senders queued and the event loop has not written yet,
/// shared between the tasks that send (anywhere) and the channel handler
/// (on the event loop).
///
/// A send returns once its frame is queued, without waiting for the loop
/// to write it: a sender does not wait for two thread hops per message,
/// and the loop writes what piled up meanwhile with one flush. It waits
/// only while the channel cannot take more (the peer stopped reading) or
/// more than ``queueLimit`` bytes wait, so memory stays bounded.
final class WebSocketOutbox: Sendable {
    /// How many bytes of payload may wait for the loop before senders wait:
    /// NIO's default high-water mark for a channel's own write buffer.
    static let queueLimit = 64 * 1024

    /// What a sender is told: whether to schedule a drain on the loop, and
    /// whether to wait until the channel can take more.
    struct Queued: Sendable {
        var schedulesDrain: Bool
        var mustWait: Bool
    }

    private struct State: Sendable {
        var frames: [WebSocketFrame] = []
        var bytes = 0
        var drainScheduled = false
        /// The channel's writability, as the handler last saw it.
        var isWritable = true
        /// The loop took frames and is writing them: their effect on the
        /// channel's writability is not known yet.
        var draining = false
        /// Whether sends fail with `notConnected`: the connection is closing.
        var closed = false
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0

        var hasRoom: Bool { isWritable && bytes <= WebSocketOutbox.queueLimit }

        mutating func takeWaiters() -> [CheckedContinuation<Void, any Error>] {
            defer { waiters = [:] }
            return Array(waiters.values)
        }
    }

    private let state = LockedValue(State())

    /// Queues `frame`; throws ``WebSocketError/notConnected`` once closing.
    func enqueue(_ frame: WebSocketFrame) throws(WebSocketError) -> Queued {
        try state.withLock { state throws(WebSocketError) in
            guard !state.closed else { throw WebSocketError.notConnected }
            state.frames.append(frame)
            // A payload's length is an Int that fits memory: the sum of what
            // is queued cannot overflow before the queue is drained.
            state.bytes += frame.data.readableBytes
            let schedulesDrain = !state.drainScheduled
            state.drainScheduled = true
            return Queued(schedulesDrain: schedulesDrain, mustWait: !state.hasRoom)
        }
    }

    /// For the loop: the frames to write now. Senders waiting for room go
    /// on when the loop reports the channel's writability after writing
    /// them (``setWritable(_:)``): the frames may well have filled it.
    func takeFrames() -> [WebSocketFrame] {
        state.withLock { state in
            defer {
                state.frames = []
                state.bytes = 0
                state.drainScheduled = false
                state.draining = true
            }
            return state.frames
        }
    }

    /// For the loop: the frames ``takeFrames()`` gave are written, and the
    /// channel's writability is now `isWritable`; waiting senders go on if
    /// there is room.
    func drained(isWritable: Bool) {
        let ready = state.withLock { state in
            state.isWritable = isWritable
            state.draining = false
            return state.hasRoom ? state.takeWaiters() : []
        }
        for waiter in ready { waiter.resume() }
    }

    /// For the loop: the channel's writability changed; waiting senders go
    /// on if there is room, unless a drain is under way (it reports).
    func setWritable(_ isWritable: Bool) {
        let ready = state.withLock { state in
            state.isWritable = isWritable
            return state.hasRoom && !state.draining ? state.takeWaiters() : []
        }
        for waiter in ready { waiter.resume() }
    }

    /// No more sends: waiting senders and later ones fail with
    /// ``WebSocketError/notConnected``. Frames queued already stay, for the
    /// loop to write before the close frame, unless `droppingQueued` (the
    /// connection is ending, and nothing more goes out).
    func close(droppingQueued: Bool) {
        let waiting = state.withLock { state in
            state.closed = true
            if droppingQueued {
                state.frames = []
                state.bytes = 0
            }
            return state.takeWaiters()
        }
        for waiter in waiting { waiter.resume(throwing: WebSocketError.notConnected) }
    }

    /// Waits until there is room again, or the connection closes.
    ///
    /// Cancelled while it waits, it throws `CancellationError`, ends sends
    /// at once and runs `onCancel`, which closes the channel: the frame may
    /// be partly out, so the connection cannot go on. A wait that ended
    /// before the cancellation stands.
    func waitForRoom(onCancel: @escaping @Sendable () -> Void) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.closed { return .failure(WebSocketError.notConnected) }
                    if state.hasRoom && !state.draining { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                if case .failure(is CancellationError)? = outcome { abandon(onCancel) }
            }
        } onCancel: {
            // Nil when the wait ended already, or has not begun (then the
            // check above sees the cancellation).
            guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
            waiter.resume(throwing: CancellationError())
            abandon(onCancel)
        }
    }

    /// A cancelled send left its frame behind: no more sends, and the channel closes.
    private func abandon(_ closeChannel: @Sendable () -> Void) {
        close(droppingQueued: true)
        closeChannel()
    }
}
