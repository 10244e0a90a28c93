/// A piece of a store's state as an async sequence: its value when iteration
/// starts, then each change. A slow reader gets the newest value; values in
/// between are skipped.
///
/// Made for the store rather than built on `AsyncStream`: a change costs a
/// comparison and a store, no buffer and no lock, so an observed store keeps
/// its `send` throughput. Each iterator reads on its own: iterating the same
/// sequence from two tasks gives both every newest value.
///
/// An iteration ends when its task is cancelled. The observation ends when
/// the sequence and its iterators are released.
public struct StoreValues<Value: Sendable>: AsyncSequence, Sendable {
    /// The observed value.
    public typealias Element = Value

    @usableFromInline let channel: LatestValueChannel<Value>

    @usableFromInline
    init(channel: LatestValueChannel<Value>) {
        self.channel = channel
    }

    /// An iterator that starts at the current value.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: Reader(channel: channel))
    }

    /// Reads the sequence; each iterator gets every newest value on its own.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        /// The current value on the first call, then the newest value after each change; `nil` once the task is cancelled.
        public mutating func next() async -> Value? {
            await reader.next()
        }
    }

    /// One iterator's place in the channel, let go with the iterator.
    final class Reader: Sendable {
        let channel: LatestValueChannel<Value>
        private let cursor = CursorSlot<Value>()

        init(channel: LatestValueChannel<Value>) {
            self.channel = channel
        }

        deinit {
            let channel = self.channel
            let cursor = self.cursor
            Task { @MainActor in channel.remove(cursor.cursor) }
        }

        @MainActor
        func next() async -> Value? {
            let cursor =
                self.cursor.cursor
                ?? {
                    let made = channel.addCursor()
                    self.cursor.cursor = made
                    return made
                }()
            return await cursor.next()
        }
    }
}

/// Where a reader keeps its cursor once made.
@MainActor
final class CursorSlot<Value: Sendable>: Sendable {
    var cursor: LatestValueChannel<Value>.Cursor?
    nonisolated init() {}
}

/// Fans a store's changes out to its readers, keeping each one's newest
/// unread value.
@MainActor
@usableFromInline
final class LatestValueChannel<Value>: Sendable {
    /// One reader: its newest unread value and its waiting continuation.
    @MainActor
    @usableFromInline
    final class Cursor: Sendable {
        @usableFromInline var pending: Value?
        @usableFromInline var waiter: CheckedContinuation<Delivery?, Never>?
        var isFinished = false

        /// A value handed from ``offer(_:)`` to the waiting ``next()``.
        @usableFromInline
        struct Delivery: @unchecked Sendable {  // safety: both ends are this main-actor class's methods
            @usableFromInline let value: Value

            @usableFromInline
            init(_ value: Value) {
                self.value = value
            }
        }

        init(pending: Value) {
            self.pending = pending
        }

        @inlinable
        func offer(_ value: Value) {
            if let waiter {
                self.waiter = nil
                waiter.resume(returning: Delivery(value))
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
            let delivery = await withTaskCancellationHandler {
                await withCheckedContinuation { waiter = $0 }
            } onCancel: {
                // Runs after `next` installed its waiter: both are main-actor work.
                Task { @MainActor in self.finish() }
            }
            return delivery?.value
        }

        func finish() {
            isFinished = true
            waiter?.resume(returning: nil)
            waiter = nil
        }
    }

    @usableFromInline var latest: Value
    @usableFromInline var cursors: [Cursor] = []
    /// Unregisters the store observer feeding this channel.
    @usableFromInline var removeObserver: (@MainActor @Sendable () -> Void)?

    @usableFromInline
    init(initial: Value) {
        latest = initial
    }

    deinit {
        if let removeObserver {
            Task { @MainActor in removeObserver() }
        }
    }

    /// A new value, for every reader.
    @inlinable  // runs on every send of an observed store: let it specialise
    func send(_ value: Value) {
        latest = value
        for cursor in cursors { cursor.offer(value) }
    }

    func addCursor() -> Cursor {
        let cursor = Cursor(pending: latest)
        cursors.append(cursor)
        return cursor
    }

    func remove(_ cursor: Cursor?) {
        guard let cursor else { return }
        cursor.finish()
        cursors.removeAll { $0 === cursor }
    }
}

/// The values ``Store/values(of:)->MainActorStoreValues<Value>`` delivers when their `Equatable`
/// conformance is isolated to the main actor (a type declared in a module
/// whose default isolation is `MainActor`, such as an Xcode 26 app target):
/// the same sequence as ``StoreValues``, read on the main actor.
///
/// ```swift
/// for await rows in store.values(of: \.visibleRows) { table.show(rows) }
/// ```
public struct MainActorStoreValues<Value> {
    @usableFromInline let channel: LatestValueChannel<Value>

    @usableFromInline
    init(channel: LatestValueChannel<Value>) {
        self.channel = channel
    }

    /// Reads the values, on the main actor.
    @MainActor
    public final class Iterator {
        let channel: LatestValueChannel<Value>
        var cursor: LatestValueChannel<Value>.Cursor?

        init(channel: LatestValueChannel<Value>) {
            self.channel = channel
        }

        isolated deinit {
            channel.remove(cursor)
        }
    }
}

extension MainActorStoreValues: @MainActor AsyncSequence {
    /// A value of the observed state.
    public typealias Element = Value

    /// Starts reading the values: the current one first.
    @MainActor
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel)
    }
}

extension MainActorStoreValues.Iterator: @MainActor AsyncIteratorProtocol {
    /// The latest value not yet read, waiting for a change if there is
    /// none; `nil` once the reading task is cancelled.
    @MainActor
    public func next() async -> Value? {
        let cursor = self.cursor ?? channel.addCursor()
        self.cursor = cursor
        return await cursor.next()
    }
}
