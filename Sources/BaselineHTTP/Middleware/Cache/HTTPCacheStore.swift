/// Where ``ResponseCache`` keeps responses, by key (the request URL).
///
/// Baseline ships ``MemoryCacheStore``. A store on disk conforms the same
/// way; it handles its own failures (a read that fails is a miss, a write
/// that fails is a write not made), since a cache must never fail a request.
public protocol HTTPCacheStore: Sendable {
    /// The entry for `key`, if there is one.
    func cachedResponse(for key: String) async -> CachedResponse?
    /// Stores `entry` for `key`, replacing any entry there.
    func store(_ entry: CachedResponse, for key: String) async
    /// Removes the entry for `key`, if there is one.
    func removeCachedResponse(for key: String) async
    /// Removes every entry: call it when the user logs out, as entries may
    /// hold what only that user was allowed to see.
    func removeAll() async
}
