/// Keys in the order they were last touched, oldest first: what the login
/// limiter and the refresh-token store expire and evict from, at a constant
/// cost per operation on average rather than a scan of every key.
///
/// Touching a key again appends it anew and leaves its old place stale;
/// stale places are skipped when they reach the front, and the storage is
/// compacted once they outnumber the keys, so it stays within about twice
/// the number of keys.
struct RecencyQueue<Key: Hashable> {
    private var slots: [(key: Key, stamp: UInt64)] = []
    /// Slots before this index are gone.
    private var head = 0
    /// Each key's latest stamp: a slot with another stamp is stale.
    private var stamps: [Key: UInt64] = [:]
    private var clock: UInt64 = 0

    /// How many keys the queue holds.
    var count: Int { stamps.count }

    /// Whether `key` is in the queue.
    func contains(_ key: Key) -> Bool {
        stamps[key] != nil
    }

    /// Makes `key` the most recently touched, adding it if needed.
    mutating func touch(_ key: Key) {
        clock += 1
        stamps[key] = clock
        slots.append((key, clock))
        compactIfMostlyStale()
    }

    /// Takes `key` out, wherever it is.
    mutating func remove(_ key: Key) {
        guard stamps.removeValue(forKey: key) != nil else { return }
        compactIfMostlyStale()
    }

    /// The key touched least recently; nil when the queue is empty.
    mutating func oldest() -> Key? {
        while head < slots.count {
            let slot = slots[head]
            if stamps[slot.key] == slot.stamp { return slot.key }
            head += 1
        }
        return nil
    }

    /// Takes out and returns the key touched least recently.
    mutating func removeOldest() -> Key? {
        guard let key = oldest() else { return nil }
        remove(key)
        return key
    }

    /// Every key, from the least recently touched to the most.
    var keys: [Key] {
        slots[head...].filter { stamps[$0.key] == $0.stamp }.map(\.key)
    }

    private mutating func compactIfMostlyStale() {
        guard slots.count > 2 * stamps.count + 32 else { return }
        slots = slots[head...].filter { stamps[$0.key] == $0.stamp }
        head = 0
    }
}
