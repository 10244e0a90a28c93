import NIOConcurrencyHelpers

/// The members' favourite photos behind `GET /favourites/live`, shared by
/// every connection of one server and kept for as long as the server runs.
///
/// A member has a set of photo ids; a photo's count is how many members
/// have it. At most ``capacity`` distinct photos have a count at once: past
/// that, making a new photo a favourite is refused, so clients cannot grow
/// the table without limit.
///
/// Each connection subscribes and gets its own queue of messages (a
/// snapshot first, then every change), bounded by ``queueLimit``: a
/// connection whose client reads too slowly to keep within it is marked
/// overflowed and its queue ends, rather than the table buffering for it
/// without limit or waiting on it while others go without.
final class FavouriteTable: Sendable {
    /// A connection's place in the table: its member and its queue.
    final class Subscription: Sendable {
        let id: UInt64
        /// The member whose flags this connection sees and sets.
        let member: String
        /// The connection's queue, in order; it ends when the connection
        /// falls more than ``FavouriteTable/queueLimit`` entries behind.
        let messages: AsyncStream<FavouriteOutbound>
        fileprivate let continuation: AsyncStream<FavouriteOutbound>.Continuation
        private let overflowed = NIOLockedValueBox(false)
        fileprivate let onOverflow: @Sendable () -> Void

        fileprivate init(id: UInt64, member: String, queueLimit: Int, onOverflow: @escaping @Sendable () -> Void) {
            self.id = id
            self.member = member
            let (messages, continuation) = AsyncStream.makeStream(
                of: FavouriteOutbound.self,
                bufferingPolicy: .bufferingOldest(queueLimit)
            )
            self.messages = messages
            self.continuation = continuation
            self.onOverflow = onOverflow
        }

        /// Whether the queue ended because the client fell behind.
        var hasOverflowed: Bool { overflowed.withLockedValue { $0 } }

        /// Queues `entry`; false when the queue was full, which ends it.
        fileprivate func enqueue(_ entry: FavouriteOutbound) -> Bool {
            if hasOverflowed { return true }
            if case .dropped = continuation.yield(entry) {
                overflowed.withLockedValue { $0 = true }
                continuation.finish()
                return false
            }
            return true
        }
    }

    private struct State {
        /// Photo id → how many members have it; only counts above zero.
        var counts: [String: Int] = [:]
        /// Member id → the photos the member has as favourites.
        var favourites: [String: Set<String>] = [:]
        var subscribers: [UInt64: Subscription] = [:]
        var nextID: UInt64 = 0
    }

    /// The most distinct photos with a count above zero.
    let capacity: Int
    /// The most entries a connection's queue holds before the connection is
    /// dropped as too slow.
    let queueLimit: Int
    private let state = NIOLockedValueBox(State())

    /// An empty table.
    init(capacity: Int = 10_000, queueLimit: Int = 256) {
        self.capacity = max(capacity, 0)
        self.queueLimit = max(queueLimit, 1)
    }

    /// How many photos have a count above zero.
    var photoCount: Int { state.withLockedValue { $0.counts.count } }

    /// How many connections are subscribed.
    var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }

    /// Subscribes a connection of `member`: its queue starts with the
    /// snapshot of every count above zero (in photo id order), and every
    /// later change follows it, none missed nor sent twice.
    ///
    /// `onOverflow` is called (outside the table's lock) once, if the
    /// connection's queue overflows.
    func subscribe(member: String, onOverflow: @escaping @Sendable () -> Void = {}) -> Subscription {
        state.withLockedValue { state in
            state.nextID &+= 1
            let subscription = Subscription(
                id: state.nextID,
                member: member,
                queueLimit: queueLimit,
                onOverflow: onOverflow
            )
            let own = state.favourites[member] ?? []
            let snapshot = state.counts.sorted { $0.key < $1.key }.map { photo, count in
                FavouriteUpdate(photo: photo, count: count, favourite: own.contains(photo))
            }
            if !snapshot.isEmpty { _ = subscription.enqueue(.snapshot(snapshot)) }
            state.subscribers[subscription.id] = subscription
            return subscription
        }
    }

    /// Removes a connection (when it closes); its queue ends.
    func unsubscribe(_ subscription: Subscription) {
        state.withLockedValue { _ = $0.subscribers.removeValue(forKey: subscription.id) }
        subscription.continuation.finish()
    }

    /// Sets whether the subscription's member has `photo` as a favourite.
    ///
    /// A change is sent to every subscribed connection, the sender's
    /// included, each with its own member's flag; a set that changes nothing
    /// is confirmed to the sender only. Making a new photo a favourite when
    /// ``capacity`` photos already have counts sends the sender a
    /// `too_many_photos` error instead.
    func set(photo: String, favourite: Bool, from sender: Subscription) {
        let overflowed: [Subscription] = state.withLockedValue { state in
            var photos = state.favourites[sender.member] ?? []
            let count = state.counts[photo] ?? 0
            guard photos.contains(photo) != favourite else {
                let confirmation = FavouriteUpdate(photo: photo, count: count, favourite: favourite)
                return sender.enqueue(.update(confirmation)) ? [] : [sender]
            }
            let newCount: Int
            if favourite {
                guard count > 0 || state.counts.count < capacity else {
                    let message = "The server keeps counts for at most \(capacity) photos; this one cannot be added."
                    return sender.enqueue(.error(code: "too_many_photos", message: message)) ? [] : [sender]
                }
                photos.insert(photo)
                // At most one per member, and members are a fixed list.
                newCount = count + 1
            } else {
                photos.remove(photo)
                newCount = count - 1
            }
            state.favourites[sender.member] = photos.isEmpty ? nil : photos
            state.counts[photo] = newCount > 0 ? newCount : nil
            var overflowed: [Subscription] = []
            for subscriber in state.subscribers.values {
                let flag =
                    subscriber.member == sender.member
                    ? favourite : state.favourites[subscriber.member]?.contains(photo) ?? false
                let update = FavouriteUpdate(photo: photo, count: newCount, favourite: flag)
                if !subscriber.enqueue(.update(update)) { overflowed.append(subscriber) }
            }
            return overflowed
        }
        for subscriber in overflowed { subscriber.onOverflow() }
    }
}
