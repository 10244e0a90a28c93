import BaselineConcurrency
import Foundation

/// A single-reader queue of body chunks between a callback-driven producer
/// (a `URLSession` delegate) and the async reader of an ``HTTPBody``.
///
/// Flow control: when more than `highWater` bytes wait unread, the channel
/// asks the producer to pause, and to resume once the reader has brought it
/// under `lowWater`. A producer that cannot pause passes no `flowControl`
/// but an `unreadLimit`: when more bytes than that wait unread, the transfer
/// is stopped (`onCancel`) and the reader, after the bytes queued, gets
/// ``ReaderFellBehind``, rather than the queue growing without bound.
///
/// A struct around one lock that holds everything (queue and settings): a
/// response costs one allocation here, and copies share the queue.
// Everything is read and written under the lock; the closures run outside it.
struct BodyChannel: ChunkReader, @unchecked Sendable {  // safety: see above
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var bufferedBytes = 0
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<Data?, any Error>?
        var paused = false
        var cancelled = false
        var claimed = false
        let highWater: Int
        let lowWater: Int
        let unreadLimit: Int?
        let flowControl: (@Sendable (_ pause: Bool) -> Void)?
        let onCancel: @Sendable () -> Void
    }

    private let state: LockStorage<State>

    init(
        highWater: Int = 4 * 1024 * 1024,
        lowWater: Int = 1024 * 1024,
        unreadLimit: Int? = nil,
        flowControl: (@Sendable (_ pause: Bool) -> Void)? = nil,
        onCancel: @escaping @Sendable () -> Void
    ) {
        state = LockStorage.make(
            holding: State(
                highWater: highWater,
                lowWater: lowWater,
                unreadLimit: unreadLimit,
                flowControl: flowControl,
                onCancel: onCancel
            )
        )
    }

    // MARK: Reader

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    // MARK: Producer

    /// Hands a chunk to the reader, or queues it.
    func yield(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        let (waiter, pause, stop) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, (@Sendable (Bool) -> Void)?, (@Sendable () -> Void)?) in
            guard state.end == nil, !state.cancelled else { return (nil, nil, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, nil, nil)
            }
            state.chunks.append(chunk)
            state.bufferedBytes += chunk.count
            if state.bufferedBytes > state.highWater, !state.paused, let flowControl = state.flowControl {
                state.paused = true
                return (nil, flowControl, nil)
            }
            if state.flowControl == nil, let limit = state.unreadLimit, state.bufferedBytes > limit {
                // Nothing can pause the producer: stop it, and tell the reader why after what it has.
                state.end = .failure(HTTPClientError.transport(underlying: ReaderFellBehind(limit: limit)))
                return (nil, nil, state.onCancel)
            }
            return (nil, nil, nil)
        }
        waiter?.resume(returning: chunk)
        pause?(true)
        stop?()
    }

    /// Ends the body, with an error when the transfer failed.
    func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    // MARK: Reader

    func next() async throws -> Data? {
        // What has already arrived is taken without suspending: a suspension
        // is a trip through the executor, and for a small response (one
        // chunk, then the end) that would double the cost of reading it.
        if Task.isCancelled {
            cancel()
            throw CancellationError()
        }
        if let ready = takeReady() {
            return try ready.get()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                // Checked again under the lock that the producer takes, so a
                // chunk arriving in between is not missed.
                if let ready = takeReady(orWaitWith: continuation) { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunk or the end, if there is one; otherwise `waiter` (when
    /// given) is parked for the producer to resume.
    private func takeReady(orWaitWith waiter: CheckedContinuation<Data?, any Error>? = nil) -> Result<Data?, any Error>?
    {
        let (result, resumeProducer) = state.withLock {
            state -> (Result<Data?, any Error>?, (@Sendable (Bool) -> Void)?) in
            if state.cancelled { return (.failure(CancellationError()), nil) }
            if state.head < state.chunks.count {
                let chunk = state.chunks[state.head]
                state.head += 1
                state.bufferedBytes -= chunk.count
                if state.head > 64, state.head * 2 > state.chunks.count {
                    state.chunks.removeFirst(state.head)
                    state.head = 0
                }
                guard state.paused, state.bufferedBytes < state.lowWater else { return (.success(chunk), nil) }
                state.paused = false
                return (.success(chunk), state.flowControl)
            }
            switch state.end {
            case .success: return (.success(nil), nil)
            case let .failure(error): return (.failure(error), nil)
            case nil:
                if let waiter { state.waiter = waiter }
                return (nil, nil)
            }
        }
        resumeProducer?(false)
        return result
    }

    /// The reader stopped: drop what is queued and stop the producer.
    func cancel() {
        let (waiter, onCancel) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?) in
            let wasCancelled = state.cancelled || state.end != nil && state.head >= state.chunks.count
            state.cancelled = true
            state.chunks = []
            state.head = 0
            state.bufferedBytes = 0
            defer { state.waiter = nil }
            return (state.waiter, wasCancelled ? nil : state.onCancel)
        }
        waiter?.resume(throwing: CancellationError())
        onCancel?()
    }
}
