import BaselineConcurrency

/// An ``HTTPCacheStore`` in memory, bounded in bytes, that evicts the least
/// recently used entries first.
///
/// ```swift
/// let cache = ResponseCache(store: MemoryCacheStore(byteLimit: 20 * 1024 * 1024))
/// ```
///
/// An entry's size is ``CachedResponse/cost``: its body and header fields.
/// An entry larger than the whole limit is not stored.
public final class MemoryCacheStore: HTTPCacheStore {
    /// One entry in the recency list, linked by key (most recent at `head`).
    private struct Node {
        var entry: CachedResponse
        var cost: Int
        var newer: String?
        var older: String?
    }

    private struct State {
        var nodes: [String: Node] = [:]
        var newest: String?
        var oldest: String?
        var totalCost = 0

        mutating func unlink(_ key: String) -> Node? {
            guard let node = nodes.removeValue(forKey: key) else { return nil }
            if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
            if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
            totalCost -= node.cost
            return node
        }

        mutating func insertAsNewest(_ key: String, entry: CachedResponse, cost: Int) {
            nodes[key] = Node(entry: entry, cost: cost, newer: nil, older: newest)
            if let previous = newest { nodes[previous]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
            totalCost += cost
        }
    }

    /// The most bytes the store holds.
    public let byteLimit: Int
    private let state = LockedValue(State())

    /// Creates an empty store holding at most `byteLimit` bytes.
    public init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// The bytes the entries take.
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// How many entries the store holds.
    public var count: Int { state.withLock { $0.nodes.count } }

    /// The entry for `key`, marked as the most recently used.
    public func cachedResponse(for key: String) async -> CachedResponse? {
        state.withLock { state in
            guard let node = state.unlink(key) else { return nil }
            state.insertAsNewest(key, entry: node.entry, cost: node.cost)
            return node.entry
        }
    }

    /// Stores `entry` for `key` and evicts the least recently used entries
    /// beyond ``byteLimit``. An entry larger than the limit is not stored.
    public func store(_ entry: CachedResponse, for key: String) async {
        let cost = entry.cost
        state.withLock { state in
            _ = state.unlink(key)
            guard cost <= byteLimit else { return }
            state.insertAsNewest(key, entry: entry, cost: cost)
            while state.totalCost > byteLimit, let oldest = state.oldest {
                _ = state.unlink(oldest)
            }
        }
    }

    /// Removes the entry for `key`, if any.
    public func removeCachedResponse(for key: String) async {
        _ = state.withLock { $0.unlink(key) }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { $0 = State() }
    }
}
