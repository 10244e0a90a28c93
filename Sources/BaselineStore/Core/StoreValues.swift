/// A piece of a store's state as an async sequence: its value now, then each
/// change. A slow reader gets the newest value; values in between are skipped.
///
/// Made for the store rather than built on `AsyncStream`: a change costs a
/// comparison and a store, no buffer and no lock, so an observed store keeps
/// its `send` throughput.
///
/// The sequence ends when the reading task is cancelled. The observation
/// ends when the sequence and its iterator are released.
public struct StoreValues<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value

    @usableFromInline let channel: LatestValueChannel<Value>

    @usableFromInline
    init(channel: LatestValueChannel<Value>) {
        self.channel = channel
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let channel: LatestValueChannel<Value>

        public mutating func next() async -> Value? {
            await channel.next()
        }
    }
}

/// Holds the newest value not yet read, and the reader waiting for one.
@MainActor
@usableFromInline
final class LatestValueChannel<Value: Sendable>: Sendable {
    @usableFromInline var pending: Value?
    @usableFromInline var waiter: CheckedContinuation<Value?, Never>?
    private var isFinished = false
    /// Unregisters the store observer feeding this channel.
    @usableFromInline var removeObserver: (@MainActor @Sendable () -> Void)?

    @usableFromInline
    init(initial: Value) {
        pending = initial
    }

    deinit {
        if let removeObserver {
            Task { @MainActor in removeObserver() }
        }
    }

    /// A new value: to the waiting reader, or kept as the newest.
    @inlinable  // runs on every send of an observed store: let it specialise
    func send(_ value: Value) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: value)
        } else {
            pending = value
        }
    }

    func next() async -> Value? {
        if let value = pending {
            pending = nil
            return value
        }
        if isFinished { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            // Runs after `next` installed its waiter: both are main-actor work.
            Task { @MainActor in self.finish() }
        }
    }

    private func finish() {
        isFinished = true
        removeObserver?()
        removeObserver = nil
        waiter?.resume(returning: nil)
        waiter = nil
    }
}
