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
final class SyncCursorBroadcast: Sendable {
    private struct State {
        var continuations: [UInt64: AsyncStream<SyncCursorChange>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// A stream of the changes published from now on; it ends when its
    /// reader stops reading or ``finish()`` is called.
    func stream() -> AsyncStream<SyncCursorChange> {
        // Unbounded, but read by one forwarding loop that only hands cursors on.
        let (stream, continuation) = AsyncStream.makeStream(of: SyncCursorChange.self)
        let id = state.withLockedValue { state in
            state.nextID &+= 1
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields `change` to every stream.
    func publish(_ change: SyncCursorChange) {
        let continuations = state.withLockedValue { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(change) }
    }

    /// Ends every stream: the store is closing.
    func finish() {
        let continuations = state.withLockedValue { state in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
