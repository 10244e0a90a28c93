import BaselineConcurrency
import BaselineHTTP
import Foundation

@testable import BaselineSync

/// A sync server in memory, with the protocol's rules (validation, merge,
/// idempotent change ids, a cursor per change) and switches for what goes
/// wrong: unreachable, answers lost after applying. For the engine's unit
/// tests; the example server's tests run the real one.
final class MemorySyncServer: SyncServer {
    struct Stored: Equatable {
        var state: RowState
        var seq: Int64
    }

    private struct State {
        var rows: [String: Stored] = [:]  // "table/row"
        var seq: Int64 = 0
        var applied: Set<String> = []
        var reachable = true
        var losesAnswers = false
        var pushes = 0
        var channels: [UInt64: AsyncThrowingStream<Int64, any Error>.Continuation] = [:]
        var nextChannel: UInt64 = 0
    }

    let schema: SyncSchema
    private let state = LockedValue(State())

    init(schema: SyncSchema) {
        self.schema = schema
    }

    struct Unreachable: Error {}

    /// Whether requests get through; going unreachable drops live channels.
    var isReachable: Bool {
        get { state.current.reachable }
        set {
            let dropped = state.withLock { state in
                state.reachable = newValue
                defer { if !newValue { state.channels = [:] } }
                return newValue ? [] : Array(state.channels.values)
            }
            for channel in dropped { channel.finish(throwing: Unreachable()) }
        }
    }

    /// Whether a push is applied but its answer lost (as when a connection
    /// drops after the server committed).
    var losesAnswers: Bool {
        get { state.current.losesAnswers }
        set { state.withLock { $0.losesAnswers = newValue } }
    }

    var pushCount: Int { state.current.pushes }
    var rows: [String: Stored] { state.current.rows }
    var appliedIDs: Set<String> { state.current.applied }

    /// The rows that exist, by table/row, with their field values.
    var liveRows: [String: [String: SyncValue]] {
        state.current.rows.filter { $0.value.state.exists }.mapValues { $0.state.fields.mapValues(\.value) }
    }

    func push(_ push: SyncPush) async throws -> SyncPushResult {
        let (result, notify):
            (Result<SyncPushResult, any Error>, [AsyncThrowingStream<Int64, any Error>.Continuation]) =
                state.withLock { state in
                    guard state.reachable else { return (.failure(Unreachable()), []) }
                    state.pushes += 1
                    var faults: [SyncRefusal.Change] = []
                    for change in push.changes {
                        guard let table = schema.table(named: change.table) else {
                            faults.append(.init(id: change.id, code: .unknownTable, message: "No such table."))
                            continue
                        }
                        if let (code, message) = table.validate(change) {
                            faults.append(.init(id: change.id, code: code, message: message))
                        }
                    }
                    if !faults.isEmpty {
                        let refusal = SyncRefusal(.init(code: faults[0].code, message: "Refused.", changes: faults))
                        return (.failure(SyncServerError.refused(status: 400, refusal)), [])
                    }
                    for change in push.changes where !state.applied.contains(change.id) {
                        let key = "\(change.table)/\(change.row)"
                        let before = state.rows[key]?.state ?? RowState()
                        let after = before.merging(change.state)
                        if after != before {
                            state.seq += 1
                            state.rows[key] = Stored(state: after, seq: state.seq)
                        }
                        state.applied.insert(change.id)
                    }
                    let result = SyncPushResult(applied: push.changes.map(\.id), cursor: state.seq)
                    return (
                        state.losesAnswers ? .failure(Unreachable()) : .success(result), Array(state.channels.values)
                    )
                }
        if case let .success(answer) = result {
            for channel in notify { channel.yield(answer.cursor) }
        } else if !notify.isEmpty {
            let cursor = state.current.seq
            for channel in notify { channel.yield(cursor) }
        }
        return try result.get()
    }

    func pull(after cursor: Int64, limit: Int) async throws -> SyncPage {
        try state.withLock { state in
            guard state.reachable else { throw Unreachable() }
            guard cursor <= state.seq else {
                throw SyncServerError.refused(
                    status: 400,
                    SyncRefusal(.init(code: .cursorAhead, message: "Unknown cursor."))
                )
            }
            let newer = state.rows.filter { $0.value.seq > cursor }.sorted { $0.value.seq < $1.value.seq }
            let page = newer.prefix(limit).map { key, stored in
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                return (SyncRow(table: parts[0], row: parts[1], state: stored.state), stored.seq)
            }
            return SyncPage(rows: page.map(\.0), cursor: page.last?.1 ?? cursor, more: newer.count > limit)
        }
    }

    func changes() async throws -> AsyncThrowingStream<Int64, any Error>? {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int64.self)
        try state.withLock { state in
            guard state.reachable else { throw Unreachable() }
            state.nextChannel += 1
            state.channels[state.nextChannel] = continuation
        }
        return stream
    }

    /// Forgets everything, as a server restored from an old backup would.
    func reset() {
        state.withLock { state in
            state.rows = [:]
            state.seq = 0
            state.applied = []
        }
    }
}
