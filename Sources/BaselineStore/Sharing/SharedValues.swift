import BaselineConcurrency

/// The shared values of a process (or of one test store): one per key, which
/// every holder of the key reads and writes.
///
/// A store uses ``DependencyValues/sharedValues``: the process's for an
/// app, a fresh one for each `TestStore`, so that tests running side by side
/// share nothing in memory. Files and rows are shared through the file or
/// the database as between processes.
public final class SharedValues: Sendable {
    private let hubs = LockedValue<[HubKey: Entry]>([:])

    /// An empty set of shared values.
    public init() {}

    /// The values of this process: what stores use unless told otherwise.
    public static let process = SharedValues()

    /// The one hub for `key`. An in-memory value's hub is kept for the
    /// process's life (the value lives there). A stored value's is held
    /// weakly: its holders' effects and its saves keep it, and once they
    /// are over it goes (its value is in the file or the row), so keys made
    /// per item do not pile up, and a key made again with other options
    /// (another connection, `ownerOnly`) takes effect.
    func hub<Value: Equatable & Sendable>(for key: SharedKey<Value>) -> SharedHub<Value> {
        hubs.withLock { hubs in
            let id = HubKey(id: key.id, type: ObjectIdentifier(Value.self))
            if let hub = hubs[id]?.hub as? SharedHub<Value> { return hub }
            if hubs.count >= 64 { hubs = hubs.filter { $0.value.hub != nil } }
            let hub = SharedHub(key)
            hubs[id] = key.save == nil ? .kept(hub) : .held(WeakHub(hub))
            return hub
        }
    }

    /// Waits until every change written so far, to any key, has been saved
    /// (or failed to): what an app does before it closes the database its
    /// rows live in, or exits.
    ///
    /// ```swift
    /// await SharedValues.process.waitForSaves()
    /// try await database.close()
    /// ```
    public func waitForSaves() async {
        let saving = hubs.withLock { hubs in hubs.values.compactMap { $0.hub as? any SavingHub } }
        for hub in saving { await hub.waitForSaves() }
    }

    private struct HubKey: Hashable {
        let id: String
        let type: ObjectIdentifier
    }

    /// A hub kept for the process's life, or one held while in use.
    private enum Entry: Sendable {
        case kept(any AnyObject & Sendable)
        case held(WeakHub)

        var hub: (any AnyObject & Sendable)? {
            switch self {
            case let .kept(hub): hub
            case let .held(weak): weak.hub
            }
        }
    }

    private struct WeakHub: Sendable {
        weak var hub: (any AnyObject & Sendable)?
        init(_ hub: any AnyObject & Sendable) { self.hub = hub }
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

/// A hub whose saves can be waited for, whatever its value's type.
protocol SavingHub: Sendable {
    /// Returns once every write made so far is saved or failed to be.
    func waitForSaves() async
}

/// What a hub tells the holders following it, in order.
enum SharedEvent<Value: Sendable>: Sendable {
    /// The stored value, or another holder's or process's change.
    case value(Value?)
    /// The stored value could not be read.
    case loadFailed(SharedFailure)
    /// A change could not be saved.
    case saveFailed(SharedFailure)
    /// A change was saved after a save had failed.
    case saved
}

/// One key's value in a process: its holders, its loads, its saves, and its
/// watch for changes made elsewhere.
///
/// - **One load at a time.** A load asked for while one runs (a change
///   signalled from outside, a holder joining) runs after it, so results
///   arrive in the order they were read.
/// - **Writes win over reads.** Writes are numbered; a load that was under
///   way when a write was made, or that read while a save was pending, read
///   an older value than the hub's and is dropped. A holder applies a value
///   only if it is still the hub's (``isCurrent(_:)``), so no holder keeps
///   an older value after a newer one, whichever order their actions run in.
/// - **Saves one at a time**, the newest pending write each time; their
///   failures, and the success that follows one, go to every holder.
final class SharedHub<Value: Equatable & Sendable>: SavingHub {
    let key: SharedKey<Value>

    private struct State: Sendable {
        var current: Value?
        /// Whether a load has settled what the holders were told.
        var loaded = false
        /// The last load's failure, told to holders that join after it.
        var loadFailure: SharedFailure?
        var loading = false
        var loadAgain = false
        /// Counts the times the last holder left: a load from before is stale.
        var generation: UInt64 = 0
        var holders: [UInt64: AsyncStream<SharedEvent<Value>>.Continuation] = [:]
        var watch: Task<Void, Never>?
        /// Numbers the writes; the newest one's.
        var writes: UInt64 = 0
        /// The newest write saved (or failed to), and whether the last save failed.
        var saved: UInt64 = 0
        var lastSaveFailed = false
        /// The newest write not yet handed to the saver.
        var pending: (value: Value, write: UInt64)?
        var saving = false
        var waiters: [UInt64: (write: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter: UInt64 = 0

        func tell(_ event: SharedEvent<Value>, except holder: UInt64? = nil) {
            for (id, continuation) in holders where id != holder { continuation.yield(event) }
        }
    }

    private let state = LockedValue(State())

    init(_ key: SharedKey<Value>) {
        self.key = key
    }

    /// The number of the newest write.
    var lastWrite: UInt64 { state.withLock { $0.writes } }

    func waitForSaves() async {
        await saved(through: lastWrite)
    }

    /// Whether `value` is the key's value now: what a holder checks before
    /// applying a value that arrived, in case a newer write overtook it.
    func isCurrent(_ value: Value) -> Bool {
        state.withLock { $0.current == value }
    }

    /// The events for `holder`: the stored value first (once loaded), then
    /// every change it did not make itself, until the stream is dropped.
    func follow(as holder: UInt64) -> AsyncStream<SharedEvent<Value>> {
        let (stream, continuation) = AsyncStream.makeStream(of: SharedEvent<Value>.self)
        // The watch begins before the first load, so that no change made
        // after the load read the value is missed. It is made outside the
        // lock (it may touch the file system), and installed with the holder
        // in one step, so a holder is never left without one.
        var changes: AsyncStream<Void>?
        while true {
            let outcome = state.withLock { state -> Bool? in
                if state.watch == nil {
                    guard let changes else { return nil }
                    state.watch = Task { [weak self] in
                        for await _ in changes { self?.requestLoad() }
                    }
                }
                state.holders[holder] = continuation
                if state.loaded {
                    continuation.yield(state.loadFailure.map { .loadFailed($0) } ?? .value(state.current))
                    return false
                }
                return true
            }
            guard let needsLoad = outcome else {
                changes = key.changes()
                continue
            }
            continuation.onTermination = { [weak self] _ in self?.leave(holder) }
            if needsLoad { requestLoad() }
            return stream
        }
    }

    private func leave(_ holder: UInt64) {
        let watch = state.withLock { state -> Task<Void, Never>? in
            state.holders[holder] = nil
            guard state.holders.isEmpty, let watch = state.watch else { return nil }
            state.watch = nil
            // Unwatched, a change made elsewhere would be missed: the next
            // holder loads again, and a load running now is of the past.
            if key.save != nil {
                state.loaded = false
                state.generation &+= 1
            }
            return watch
        }
        watch?.cancel()
    }

    /// Loads the stored value, after the load running now if there is one.
    private func requestLoad() {
        let start = state.withLock { state -> Bool in
            if state.loading {
                state.loadAgain = true
                return false
            }
            state.loading = true
            return true
        }
        if start {
            Task { await self.loadUntilSettled() }
        }
    }

    /// Runs loads one after the other while more are asked for.
    private func loadUntilSettled() async {
        while true {
            let (generation, writes) = state.withLock { ($0.generation, $0.writes) }
            let result: Result<Value?, SharedFailure>
            do {
                result = .success(try await key.load())
            } catch {
                result = .failure(SharedFailure(error))
            }
            let again = state.withLock { state -> Bool in
                if state.generation == generation {
                    apply(result, readAfter: writes, to: &state)
                }
                if state.loadAgain {
                    state.loadAgain = false
                    return true
                }
                state.loading = false
                return false
            }
            if !again { return }
        }
    }

    /// Settles what a load read, and tells the holders what changed for them.
    private func apply(_ result: Result<Value?, SharedFailure>, readAfter writes: UInt64, to state: inout State) {
        let first = !state.loaded
        state.loaded = true
        // A write since the read began, or one not saved yet, is newer than what was read.
        if state.writes != writes || state.saving {
            state.loadFailure = nil
            if first { state.tell(.value(state.current)) }
            return
        }
        switch result {
        case let .success(value):
            let failed = state.loadFailure != nil
            state.loadFailure = nil
            if let value, value != state.current {
                state.current = value
                state.tell(.value(value))
            } else if first || failed {
                state.tell(.value(state.current))
            }
        case let .failure(failure):
            // Cancelled (the last holder left): nothing was read.
            if failure.error is CancellationError {
                state.loaded = !first
                return
            }
            guard first || state.loadFailure != failure else { return }
            state.loadFailure = failure
            state.tell(.loadFailed(failure))
        }
    }

    /// Makes `value` the key's value, tells the other holders, and saves it
    /// in the background; returns the write's number for ``saved(through:)``.
    func write(_ value: Value, from holder: UInt64?) -> UInt64 {
        let (write, startSaver) = state.withLock { state -> (UInt64, Bool) in
            // Not `loaded`: holders waiting for the first load (the writer
            // among them) hear from it, and it reports this value.
            state.current = value
            state.loadFailure = nil
            state.writes &+= 1
            state.tell(.value(value), except: holder)
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
            var failure: SharedFailure?
            do {
                try await save(value)
            } catch {
                failure = SharedFailure(error)
            }
            let ready = state.withLock { state in
                state.saved = write
                if let failure {
                    state.lastSaveFailed = true
                    state.tell(.saveFailed(failure))
                } else if state.lastSaveFailed {
                    state.lastSaveFailed = false
                    state.tell(.saved)
                }
                let ready = state.waiters.filter { $0.value.write <= write }
                for id in ready.keys { state.waiters[id] = nil }
                return ready.values.map(\.continuation)
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Waits until write `write` (or a newer one) is saved or failed to be,
    /// or the waiting task is cancelled.
    func saved(through write: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    guard state.saved < write, !Task.isCancelled else { return true }
                    state.waiters[id] = (write, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
