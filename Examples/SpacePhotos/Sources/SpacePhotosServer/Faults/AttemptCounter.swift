/// Counts requests per key, for the flaky endpoint: how many times has this
/// key been asked for?
///
/// Bounded: past ``capacity`` keys, the least recently used quarter is
/// forgotten (their counts start again), so random keys cannot grow the
/// table without limit.
actor AttemptCounter {
    let capacity: Int
    private var entries: [String: (count: Int, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = 10_000) {
        self.capacity = max(capacity, 1)
    }

    /// How many keys are counted.
    var count: Int { entries.count }

    /// Counts one more attempt for `key` and returns the total, this one included.
    func recordAttempt(_ key: String) -> Int {
        clock += 1
        let count = (entries[key]?.count ?? 0) + 1
        entries[key] = (count, clock)
        if entries.count > capacity { evict() }
        return count
    }

    private func evict() {
        // Sorting a quarter of the table away at a time keeps the cost per
        // request constant on average.
        let excess = entries.count - capacity + max(capacity / 4, 1) - 1
        let oldest = entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(excess, 1))
        for (key, _) in oldest { entries[key] = nil }
    }
}
