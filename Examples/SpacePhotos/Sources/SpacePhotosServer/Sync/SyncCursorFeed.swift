import NIOConcurrencyHelpers

/// Tells `GET /sync/live` connections when their member's cursor moves:
/// after each push that changed rows, from whichever connection.
///
/// Only the latest cursor matters to a client (it pulls from its own cursor
/// up to whatever is there), so a connection's queue holds one value: a
/// newer cursor replaces one not yet sent. A client that reads slowly gets
/// fewer messages, never a longer queue, and is never dropped for it.
final class SyncCursorFeed: Sendable {
    /// One connection's place in the feed.
    final class Subscription: Sendable {
        let id: UInt64
        let member: String
        /// The cursors to send, each larger than the one before; at most one
        /// waits, the latest.
        let cursors: AsyncStream<Int64>
        private let continuation: AsyncStream<Int64>.Continuation
        /// The largest cursor offered so far, -1 before any.
        private let offered = NIOLockedValueBox<Int64>(-1)

        fileprivate init(id: UInt64, member: String) {
            self.id = id
            self.member = member
            (cursors, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1))
        }

        /// Queues `cursor` unless a cursor as large was offered already.
        ///
        /// Pushes finish in any order, so a smaller cursor may come late;
        /// yielding under the lock keeps the queued value the largest.
        func offer(_ cursor: Int64) {
            offered.withLockedValue { offered in
                guard cursor > offered else { return }
                offered = cursor
                continuation.yield(cursor)
            }
        }

        fileprivate func finish() {
            continuation.finish()
        }
    }

    private struct State {
        var subscribers: [String: [UInt64: Subscription]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// How many connections are subscribed.
    var subscriberCount: Int { state.withLockedValue { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    /// The members with a connection subscribed.
    var members: [String] { state.withLockedValue { Array($0.subscribers.keys) } }

    /// Subscribes a connection of `member`. Subscribe before reading the
    /// member's cursor, and offer that cursor: then no push is missed.
    func subscribe(member: String) -> Subscription {
        state.withLockedValue { state in
            state.nextID &+= 1
            let subscription = Subscription(id: state.nextID, member: member)
            state.subscribers[member, default: [:]][subscription.id] = subscription
            return subscription
        }
    }

    /// Removes a connection (when it closes); its stream ends.
    func unsubscribe(_ subscription: Subscription) {
        state.withLockedValue { state in
            state.subscribers[subscription.member]?.removeValue(forKey: subscription.id)
            if state.subscribers[subscription.member]?.isEmpty == true {
                state.subscribers.removeValue(forKey: subscription.member)
            }
        }
        subscription.finish()
    }

    /// Offers `cursor` to every connection of `member`.
    func publish(_ cursor: Int64, member: String) {
        let subscribers = state.withLockedValue { Array(($0.subscribers[member] ?? [:]).values) }
        for subscriber in subscribers { subscriber.offer(cursor) }
    }
}
