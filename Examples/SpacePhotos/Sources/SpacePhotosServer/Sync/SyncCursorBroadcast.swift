import NIOConcurrencyHelpers

/// A member's cursor after a push that changed rows: what
/// ``SyncStore/cursorChanges()`` yields.
public struct SyncCursorChange: Sendable, Hashable {
    /// The member whose rows changed.
    public var member: String
    /// The member's counter after the push.
    public var cursor: Int64

    /// A change of `member`'s cursor to `cursor`.
    public init(member: String, cursor: Int64) {
        self.member = member
        self.cursor = cursor
    }
}

/// Hands each cursor change to every stream made by ``stream()``: the part of
/// ``SyncStore/cursorChanges()`` both stores share.
///
/// Only a member's latest cursor matters to a reader, so a stream keeps, for
/// each member, the largest cursor not yet read: a reader that falls behind
/// holds at most one value per member, however many pushes arrive.
final class SyncCursorBroadcast: Sendable {
    /// Held weakly: a stream dropped unread must not stay subscribed.
    private struct Subscriber {
        weak var reader: Reader?
    }

    private struct State {
        var readers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// A stream of the changes published from now on; it ends when its
    /// reader's task is cancelled, the stream is dropped, or ``finish()`` is
    /// called (after the values it holds).
    func stream() -> AsyncStream<SyncCursorChange> {
        let reader = Reader()
        let id = state.withLockedValue { state in
            state.nextID &+= 1
            if state.isFinished {
                reader.finish()
            } else {
                state.readers[state.nextID] = Subscriber(reader: reader)
            }
            return state.nextID
        }
        // The stream owns the reader: once the stream ends or is dropped,
        // the reader goes, and unsubscribes.
        reader.onEnd = { [weak self] in self?.state.withLockedValue { _ = $0.readers.removeValue(forKey: id) } }
        return AsyncStream { await reader.next() }
    }

    /// Hands `change` to every stream.
    func publish(_ change: SyncCursorChange) {
        let readers = state.withLockedValue { $0.readers.values.compactMap(\.reader) }
        for reader in readers { reader.offer(change) }
    }

    /// Ends every stream: the store is closing.
    func finish() {
        let readers = state.withLockedValue { state in
            state.isFinished = true
            defer { state.readers.removeAll() }
            return state.readers.values.compactMap(\.reader)
        }
        for reader in readers { reader.finish() }
    }

    /// One stream's pending cursors, a member at most once each, and its
    /// reader when it waits for one.
    private final class Reader: Sendable {
        private struct State {
            /// The members with a cursor not yet read, in the order they came.
            var order: [String] = []
            var pending: [String: Int64] = [:]
            var waiter: CheckedContinuation<SyncCursorChange?, Never>?
            var isFinished = false
            var onEnd: (@Sendable () -> Void)?
        }

        private let state = NIOLockedValueBox(State())

        /// Called once, when the stream ends or is dropped, to unsubscribe.
        var onEnd: (@Sendable () -> Void)? {
            get { state.withLockedValue { $0.onEnd } }
            set { state.withLockedValue { $0.onEnd = newValue } }
        }

        deinit {
            state.withLockedValue { $0.onEnd }?()
        }

        func offer(_ change: SyncCursorChange) {
            let waiter: CheckedContinuation<SyncCursorChange?, Never>? = state.withLockedValue { state in
                guard !state.isFinished else { return nil }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                if let cursor = state.pending[change.member] {
                    state.pending[change.member] = max(cursor, change.cursor)
                } else {
                    state.pending[change.member] = change.cursor
                    state.order.append(change.member)
                }
                return nil
            }
            waiter?.resume(returning: change)
        }

        /// The oldest member's largest cursor, waiting for one if none is
        /// pending; nil once finished or cancelled.
        func next() async -> SyncCursorChange? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<SyncCursorChange?, Never>) in
                    let next: SyncCursorChange?? = state.withLockedValue { state in
                        if !state.order.isEmpty {
                            let member = state.order.removeFirst()
                            let cursor = state.pending.removeValue(forKey: member) ?? 0
                            return .some(SyncCursorChange(member: member, cursor: cursor))
                        }
                        if state.isFinished || Task.isCancelled {
                            state.isFinished = true
                            return .some(nil)
                        }
                        state.waiter = continuation
                        return nil
                    }
                    if let next { continuation.resume(returning: next) }
                }
            } onCancel: {
                finish()
            }
        }

        /// Ends the stream once its pending cursors are read.
        func finish() {
            let waiter = state.withLockedValue { state in
                state.isFinished = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
