import BaselineConcurrency

/// The shared values of a process (or of one test store): one per key, which
/// every holder of the key reads and writes.
///
/// A store uses ``DependencyValues/sharedValues``: the process's for an
/// app, a fresh one for each `TestStore`, so that tests running side by side
/// share nothing in memory. Files and rows are shared through the file or
/// the database as between processes.
public final class SharedValues: Sendable {
    private let hubs = LockedValue<[HubKey: any Sendable]>([:])

    /// An empty set of shared values.
    public init() {}

    /// The values of this process: what stores use unless told otherwise.
    public static let process = SharedValues()

    /// The one hub for `key`, made at its first use and kept for the
    /// process's life (an in-memory value lives there).
    func hub<Value: Equatable & Sendable>(for key: SharedKey<Value>) -> SharedHub<Value> {
        hubs.withLock { hubs in
            let id = HubKey(id: key.id, type: ObjectIdentifier(Value.self))
            if let hub = hubs[id] as? SharedHub<Value> { return hub }
            let hub = SharedHub(key)
            hubs[id] = hub
            return hub
        }
    }

    /// Waits until every change written so far to `key`'s stored value has
    /// been saved (or failed to), as a test does before reading a file.
    public func waitForSaves<Value: Equatable & Sendable>(of key: SharedKey<Value>) async {
        let hub = hub(for: key)
        _ = await hub.saved(through: hub.lastWrite)
    }

    private struct HubKey: Hashable {
        let id: String
        let type: ObjectIdentifier
    }
}

private enum SharedValuesKey: DependencyKey {
    static let liveValue = SharedValues.process
    static let testValue = SharedValues.process
}

extension DependencyValues {
    /// Where shared values live: the process's; a `TestStore` gives each
    /// test its own.
    public var sharedValues: SharedValues {
        get { self[SharedValuesKey.self] }
        set { self[SharedValuesKey.self] = newValue }
    }
}

/// What a hub tells the holders following it.
enum SharedEvent<Value: Sendable>: Sendable {
    /// The stored value, or another holder's or process's change.
    case value(Value?)
    /// The stored value could not be read.
    case failed(SharedFailure)
}

/// One key's value in a process: its holders, its loading, its saves, and
/// its watch for changes made elsewhere.
///
/// Writes are numbered. A load that was under way when a write arrived is
/// dropped (the write is newer), and so is a reload while a save is pending:
/// the value that save writes is newer than what the reload read. So no
/// holder sees an older value after a newer one.
final class SharedHub<Value: Equatable & Sendable>: Sendable {
    let key: SharedKey<Value>

    private struct State: Sendable {
        var current: Value?
        var loaded = false
        var loading = false
        var holders: [UInt64: AsyncStream<SharedEvent<Value>>.Continuation] = [:]
        var watch: Task<Void, Never>?
        /// Numbers the writes; the newest one's.
        var writes: UInt64 = 0
        /// The newest write saved (or failed to), and how it went.
        var saved: UInt64 = 0
        var lastSave: Result<Void, SharedFailure> = .success(())
        /// The newest write not yet handed to the saver.
        var pending: (value: Value, write: UInt64)?
        var saving = false
        var waiters: [(write: UInt64, continuation: CheckedContinuation<Result<Void, SharedFailure>, Never>)] = []
    }

    private let state = LockedValue(State())

    init(_ key: SharedKey<Value>) {
        self.key = key
    }

    /// The number of the newest write.
    var lastWrite: UInt64 { state.withLock { $0.writes } }

    /// The events for `holder`: the stored value first (once loaded), then
    /// every change it did not make itself, until the stream is dropped.
    func follow(as holder: UInt64) -> AsyncStream<SharedEvent<Value>> {
        let (stream, continuation) = AsyncStream.makeStream(of: SharedEvent<Value>.self)
        // The watch begins before the first load, so that no change made
        // after the load read the value is missed. (One made for a holder
        // that finds a watch running is dropped, ending its watch.)
        let changes = state.withLock { $0.watch == nil } ? key.changes() : nil
        let startLoad = state.withLock { state -> Bool in
            state.holders[holder] = continuation
            if state.loaded {
                continuation.yield(.value(state.current))
            }
            if state.watch == nil, let changes {
                state.watch = Task { [weak self] in
                    for await _ in changes {
                        await self?.load(reporting: false)
                    }
                }
            }
            guard !state.loaded, !state.loading else { return false }
            state.loading = true
            return true
        }
        continuation.onTermination = { [weak self] _ in self?.leave(holder) }
        if startLoad {
            Task { await self.load(reporting: true) }
        }
        return stream
    }

    private func leave(_ holder: UInt64) {
        let watch = state.withLock { state -> Task<Void, Never>? in
            state.holders[holder] = nil
            guard state.holders.isEmpty, let watch = state.watch else { return nil }
            state.watch = nil
            // Unwatched, a change made elsewhere would be missed: the next holder loads again.
            if key.save != nil { state.loaded = false }
            return watch
        }
        watch?.cancel()
    }

    /// Reads the stored value; the first load (`reporting`) tells every
    /// holder what it found, a reload after an outside change only what differs.
    private func load(reporting: Bool) async {
        let before = state.withLock { $0.writes }
        let result: Result<Value?, SharedFailure>
        do {
            result = .success(try await key.load())
        } catch {
            result = .failure(SharedFailure(error))
        }
        state.withLock { state in
            if reporting {
                state.loading = false
                state.loaded = true
            }
            // A write since the read began, or one not saved yet, is newer than what was read.
            let superseded = state.writes != before || state.saving
            let event: SharedEvent<Value>
            switch result {
            case .success(let value?) where !superseded:
                guard reporting || value != state.current else { return }
                state.current = value
                event = .value(value)
            case .success:
                guard reporting else { return }
                event = .value(state.current)
            case .failure where superseded:
                guard reporting else { return }
                event = .value(state.current)
            case .failure(let failure):
                event = .failed(failure)
            }
            for continuation in state.holders.values { continuation.yield(event) }
        }
    }

    /// Makes `value` the key's value, tells the other holders, and saves it
    /// in the background; returns the write's number for ``saved(through:)``.
    func write(_ value: Value, from holder: UInt64?) -> UInt64 {
        let (write, startSaver) = state.withLock { state -> (UInt64, Bool) in
            state.current = value
            state.loaded = true
            state.writes &+= 1
            for (id, continuation) in state.holders where id != holder {
                continuation.yield(.value(value))
            }
            guard key.save != nil else {
                state.saved = state.writes
                return (state.writes, false)
            }
            state.pending = (value, state.writes)
            let start = !state.saving
            state.saving = true
            return (state.writes, start)
        }
        if startSaver {
            Task { await self.saveAll() }
        }
        return write
    }

    /// Saves pending writes one at a time, the newest each time, until none is left.
    private func saveAll() async {
        guard let save = key.save else { return }
        while let (value, write) = state.withLock({ state -> (Value, UInt64)? in
            guard let pending = state.pending else {
                state.saving = false
                return nil
            }
            state.pending = nil
            return pending
        }) {
            let result: Result<Void, SharedFailure>
            do {
                try await save(value)
                result = .success(())
            } catch {
                result = .failure(SharedFailure(error))
            }
            let ready = state.withLock { state in
                state.saved = write
                state.lastSave = result
                let ready = state.waiters.filter { $0.write <= write }
                state.waiters.removeAll { $0.write <= write }
                return ready.map(\.continuation)
            }
            for continuation in ready { continuation.resume(returning: result) }
        }
    }

    /// Waits until write `write` (or a newer one) is saved; how that save went.
    func saved(through write: UInt64) async -> Result<Void, SharedFailure> {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Result<Void, SharedFailure>? in
                guard state.saved < write else { return state.lastSave }
                state.waiters.append((write, continuation))
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
