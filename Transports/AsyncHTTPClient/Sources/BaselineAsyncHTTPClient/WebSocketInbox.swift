import BaselineConcurrency
import BaselineHTTP
import NIOCore

/// What a WebSocket connection received and not yet handed out, shared
/// between the channel handler (on the event loop) and the tasks that
/// receive and ping (anywhere): the messages waiting for the reader, the
/// connection's end once known, the reader waiting for them, and the pings
/// waiting for their pongs.
///
/// It also tells the handler when to stop reading the socket: once
/// ``capacity`` messages wait, the handler holds its reads until the reader
/// has taken enough of them. While a ping waits for its pong, which may be
/// behind more messages, it reads on up to ``pingCapacity``: a slow reader
/// must not make a live peer look dead to the keep-alive.
final class WebSocketInbox: Sendable {
    /// How many received messages may wait for the reader before the handler
    /// stops reading the socket. One read can bring more frames than that on
    /// top, as a socket read is never split, so the bound is this plus one
    /// read's worth.
    static let capacity = 16
    /// Reading starts again once the reader has brought the queue down to
    /// this, so that a reader taking one message at a time does not make
    /// the handler read and stop again for each.
    static let resumeAt = capacity / 2
    /// How many messages may wait while a ping waits for its pong: a bound
    /// still, for a peer that never answers.
    static let pingCapacity = capacity * 4

    /// How a connection ended.
    enum End: Sendable {
        /// A closing handshake: the peer's close frame, or ours when the
        /// peer did not answer it.
        case closed(WebSocketCloseCode?, reason: String)
        /// Anything else: a broken protocol, a lost connection.
        case failed(WebSocketError)

        var result: Result<WebSocketEvent, any Error> {
            switch self {
            case let .closed(code, reason): .success(.closed(code, reason: reason))
            case let .failed(error): .failure(error)
            }
        }
    }

    /// An event for the reader, and whether the handler should read again.
    struct Ready: Sendable {
        var result: Result<WebSocketEvent, any Error>
        var resumesReading: Bool
    }

    private struct Receiver: Sendable {
        var id: UInt64
        var continuation: CheckedContinuation<WebSocketEvent, any Error>
    }

    private struct State: Sendable {
        var messages = CircularBuffer<WebSocketMessage>(initialCapacity: WebSocketInbox.capacity)
        var end: End?
        var receiver: Receiver?
        var readingHeld = false
        var pings: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var lastID: UInt64 = 0
    }

    private let state = LockedValue(State())

    /// A number no other receive or ping of this connection has.
    func makeID() -> UInt64 {
        state.withLock { state in
            state.lastID &+= 1
            return state.lastID
        }
    }

    // MARK: The handler's side

    /// Hands `message` to the waiting reader, or queues it. When
    /// `droppingWhenFull`, a message that finds the queue full is dropped
    /// (while closing, when the handler keeps reading to find the peer's
    /// close frame but the reader has said it wants no more).
    func deliver(_ message: WebSocketMessage, droppingWhenFull: Bool) {
        let receiver: CheckedContinuation<WebSocketEvent, any Error>? = state.withLock { state in
            if let receiver = state.receiver {
                state.receiver = nil
                return receiver.continuation
            }
            if !droppingWhenFull || state.messages.count < Self.capacity {
                state.messages.append(message)
            }
            return nil
        }
        receiver?.resume(returning: .message(message))
    }

    /// Records how the connection ended (the first end only) and fails the
    /// pings still waiting: the reader gets the end once it has taken the
    /// messages queued before it.
    func finish(_ end: End) {
        typealias Waiters = (CheckedContinuation<WebSocketEvent, any Error>?, [CheckedContinuation<Void, any Error>])
        let (receiver, pings) = state.withLock { (state: inout State) -> Waiters in
            guard state.end == nil else { return (nil, []) }
            state.end = end
            let pings = Array(state.pings.values)
            state.pings = [:]
            var receiver: CheckedContinuation<WebSocketEvent, any Error>?
            if state.messages.isEmpty {
                receiver = state.receiver?.continuation
                state.receiver = nil
            }
            return (receiver, pings)
        }
        receiver?.resume(with: end.result)
        for ping in pings { ping.resume(throwing: WebSocketError.notConnected) }
    }

    /// Whether the queue is full, in which case the handler must hold its
    /// read until told to go on (``Ready/resumesReading``, or a ping).
    func holdReadingIfFull() -> Bool {
        state.withLock { state in
            let limit = state.pings.isEmpty ? Self.capacity : Self.pingCapacity
            state.readingHeld = state.messages.count >= limit
            return state.readingHeld
        }
    }

    /// Resumes the ping waiting for a pong with this `id`, if any.
    func pongArrived(id: UInt64) {
        state.withLock { $0.pings.removeValue(forKey: id) }?.resume()
    }

    /// Fails the ping with this `id`, if it still waits.
    func failPing(id: UInt64, with error: any Error) {
        state.withLock { $0.pings.removeValue(forKey: id) }?.resume(throwing: error)
    }

    // MARK: The tasks' side

    /// The next event when one is ready. Otherwise registers `receiver` (if
    /// given) to be resumed with the next one and returns nil.
    func next(
        orRegister receiver: (id: UInt64, continuation: CheckedContinuation<WebSocketEvent, any Error>)?
    ) -> Ready? {
        state.withLock { state in
            if let message = state.messages.popFirst() {
                var resumes = false
                if state.readingHeld, state.messages.count <= Self.resumeAt {
                    state.readingHeld = false
                    resumes = true
                }
                return Ready(result: .success(.message(message)), resumesReading: resumes)
            }
            if let end = state.end { return Ready(result: end.result, resumesReading: false) }
            guard let receiver else { return nil }
            // One reader at a time is the protocol's rule; a second one
            // waiting at once has nothing to wait for that would be its own.
            guard state.receiver == nil else {
                return Ready(result: .failure(WebSocketError.notConnected), resumesReading: false)
            }
            // A cancellation that came before the registration found no
            // receiver to cancel; the flag is set by then.
            if Task.isCancelled { return Ready(result: .failure(CancellationError()), resumesReading: false) }
            state.receiver = Receiver(id: receiver.id, continuation: receiver.continuation)
            return nil
        }
    }

    /// Ends the wait of the receiver with this `id` with `CancellationError`.
    func cancelReceive(id: UInt64) {
        let receiver: CheckedContinuation<WebSocketEvent, any Error>? = state.withLock { state in
            guard let receiver = state.receiver, receiver.id == id else { return nil }
            state.receiver = nil
            return receiver.continuation
        }
        receiver?.resume(throwing: CancellationError())
    }

    /// Registers a ping waiting for its pong; false when it was resumed at
    /// once, the connection having ended or the task being cancelled.
    func addPing(id: UInt64, _ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let failure: (any Error)? = state.withLock { state in
            if state.end != nil { return WebSocketError.notConnected }
            if Task.isCancelled { return CancellationError() }
            state.pings[id] = continuation
            return nil
        }
        guard let failure else { return true }
        continuation.resume(throwing: failure)
        return false
    }
}
