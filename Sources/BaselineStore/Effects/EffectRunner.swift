import BaselineConcurrency
import Logging

/// Runs effects for one store: starts their tasks, tracks which are running
/// and under which cancellation ids, and cancels them.
///
/// One runner per root store (and per test store): cancellation ids are
/// scoped to it. Public only for `TestStore`, in BaselineTesting; apps use
/// ``Store``.
@MainActor
public final class EffectRunner<Action> {
    /// A running effect, as reported when its store goes away.
    struct Running: Sendable {
        var task: Task<Void, Never>
        var description: String
        /// Meant to run until the store goes (a followed source): its
        /// cancellation at the store's release is no leak to report.
        var lastsForTheStore = false
    }

    private let deliver: @MainActor (Action) -> StoreTask
    private let logger: Logger
    /// Locked, not actor-isolated, so the store's `deinit` can cancel them.
    let running = LockedValue<[UInt64: Running]>([:])
    private var cancellables: [EffectID: [UInt64: Task<Void, Never>]] = [:]
    /// When the last throttled effect of each id started, as its clock's instant.
    private var throttleStarts: [EffectID: any Sendable] = [:]
    private var nextID: UInt64 = 0

    /// A runner whose effects send their actions to `deliver`.
    public init(logger: Logger, deliver: @escaping @MainActor (Action) -> StoreTask) {
        self.deliver = deliver
        self.logger = logger
    }

    /// How many effects are running.
    public var runningCount: Int { running.withLock { $0.count } }

    /// Starts `effect`, started by `action` (for diagnostics), and returns a
    /// task that finishes when all of its work has.
    public func start(_ effect: Effect<Action>, for action: Action) -> StoreTask {
        StoreTask(task: run(effect, origin: action))
    }

    private func run(_ effect: Effect<Action>, origin: Action) -> Task<Void, Never>? {
        switch effect.operation {
        case .none:
            return nil

        case let .send(action):
            return deliver(action).task

        case let .run(priority, name, operation, onError):
            return startRun(priority, name, operation, onError, origin: origin, cancellableUnder: nil)

        case let .merge(effects):
            let tasks = effects.compactMap { run($0, origin: origin) }
            return Self.whole(tasks)

        case let .concatenate(effects):
            guard !effects.isEmpty else { return nil }
            // Registered like a `.run`, so that the store's release, the test
            // store's accounting and `runningCount` see the whole sequence,
            // not only the step under way. `self` is never held across an
            // `await`: a released store must be able to go away mid-sequence.
            nextID += 1
            let id = nextID
            let task = Task { [weak self] in
                for effect in effects {
                    if Task.isCancelled { break }
                    let step = self?.run(effect, origin: origin)
                    await withTaskCancellationHandler {
                        await step?.value
                    } onCancel: {
                        step?.cancel()
                    }
                }
                self?.finished(id)
            }
            running.withLock { $0[id] = Running(task: task, description: "concatenated effects of \(origin)") }
            return task

        case let .cancellable(id, cancelInFlight, effect):
            if cancelInFlight { cancel(id: id) }
            // The usual case, one `.run`: its own task is registered under the
            // id, without a second task to wait on it (which cost as much again).
            if case let .run(priority, name, operation, onError) = effect.operation {
                return startRun(priority, name, operation, onError, origin: origin, cancellableUnder: id)
            }
            guard let inner = run(effect, origin: origin) else { return nil }
            nextID += 1
            let key = nextID
            let wrapper = Task { [weak self] in
                await withTaskCancellationHandler {
                    await inner.value
                } onCancel: {
                    inner.cancel()
                }
                self?.forget(key, under: id)
            }
            cancellables[id, default: [:]][key] = wrapper
            return wrapper

        case let .cancel(id):
            cancel(id: id)
            return nil

        case let .throttle(id, throttle):
            let waiting = EffectID(ThrottleWaiting(id: id))
            switch throttle.decide(throttleStarts[id], cancellables[waiting] != nil) {
            case let .start(effect, instant):
                // A window's end reached before its waiting effect ran: the
                // newer effect stands for it.
                cancel(id: waiting)
                throttleStarts[id] = instant
                return run(effect, origin: origin)
            case let .wait(effect):
                return run(Effect(operation: .cancellable(waiting, cancelInFlight: true, effect)), origin: origin)
            case .drop:
                return nil
            }

        case let .markThrottleStart(id, instant):
            // The waiting effect starts now: it no longer waits, so a newer one
            // neither replaces it (latest) nor is dropped for it (first), and
            // it runs on like the one started at once, cancelled only by
            // cancel(id:).
            throttleStarts[id] = instant
            cancellables[EffectID(ThrottleWaiting(id: id))] = nil
            return nil
        }
    }

    /// Starts a `.run` effect's task, registered as running and, with
    /// `cancellableUnder`, under that cancellation id until it ends.
    private func startRun(
        _ priority: TaskPriority?,
        _ name: String?,
        _ operation: @escaping @Sendable (Send<Action>) async throws -> Void,
        _ onError: (@Sendable (any Error, Send<Action>) async -> Void)?,
        origin: Action,
        cancellableUnder cancellationID: EffectID?
    ) -> Task<Void, Never> {
        nextID += 1
        let id = nextID
        let send = Send<Action> { [weak self] action in _ = self?.deliver(action) }
        let logger = self.logger
        // Main-actor isolated like this method, so it cannot end (and forget
        // itself) before it is registered below.
        let task = Task(priority: priority) { [weak self] in
            await Self.perform(operation, onError: onError, send: send, logger: logger)
            self?.finished(id)
            if let cancellationID { self?.forget(id, under: cancellationID) }
        }
        let running = Running(
            task: task,
            description: name ?? "run effect of \(origin)",
            lastsForTheStore: cancellationID?.base.base is any LastsForTheStore
        )
        self.running.withLock { $0[id] = running }
        if let cancellationID { cancellables[cancellationID, default: [:]][id] = task }
        return task
    }

    private func forget(_ key: UInt64, under id: EffectID) {
        cancellables[id]?[key] = nil
        if cancellables[id]?.isEmpty == true { cancellables[id] = nil }
    }

    /// Cancels every running effect marked with `id`, and a throttled effect
    /// with `id` waiting for its window to end.
    func cancel(id: EffectID) {
        for key in [id, EffectID(ThrottleWaiting(id: id))] {
            guard let tasks = cancellables.removeValue(forKey: key) else { continue }
            for task in tasks.values { task.cancel() }
        }
    }

    /// The tasks of the running effects.
    public var runningTasks: [Task<Void, Never>] { running.withLock { $0.values.map(\.task) } }

    /// Cancels everything (the store is going away) and describes what was running.
    nonisolated public func cancelAll() -> [String] {
        cancelEverything().map(\.description)
    }

    /// Cancels everything as the store goes, and describes what was running
    /// that was not meant to run until then.
    nonisolated func cancelAllAtRelease() -> [String] {
        cancelEverything().filter { !$0.lastsForTheStore }.map(\.description)
    }

    nonisolated private func cancelEverything() -> [Running] {
        let all = running.withLock { running -> [Running] in
            defer { running = [:] }
            return Array(running.values)
        }
        for effect in all { effect.task.cancel() }
        return all
    }

    private func finished(_ id: UInt64) {
        running.withLock { $0[id] = nil }
    }

    /// Runs an effect's work off the main actor.
    nonisolated private static func perform(
        _ operation: @Sendable (Send<Action>) async throws -> Void,
        onError: (@Sendable (any Error, Send<Action>) async -> Void)?,
        send: Send<Action>,
        logger: Logger
    ) async {
        do {
            try await operation(send)
        } catch is CancellationError {
            return
        } catch {
            if Task.isCancelled { return }
            if let onError {
                await onError(error, send)
            } else {
                logger.error("An effect failed and has no error handler", metadata: ["error": "\(error)"])
            }
        }
    }

    /// One task standing for several: finishes when all have, cancels them all.
    private static func whole(_ tasks: [Task<Void, Never>]) -> Task<Void, Never>? {
        switch tasks.count {
        case 0: return nil
        case 1: return tasks[0]
        default:
            return Task {
                await withTaskCancellationHandler {
                    for task in tasks { await task.value }
                } onCancel: {
                    for task in tasks { task.cancel() }
                }
            }
        }
    }
}

/// The work an action started, returned by `send`: await ``finish()`` to
/// suspend exactly as long as that work runs.
///
/// ```swift
/// .refreshable { await store.send(.refresh).finish() }
/// ```
public struct StoreTask: Hashable, Sendable {
    let task: Task<Void, Never>?

    /// A task standing for no work: it is finished already.
    public static let none = StoreTask(task: nil)

    /// Waits until every effect the action started has finished. Cancelling
    /// the waiting task cancels those effects.
    public func finish() async {
        await withTaskCancellationHandler {
            await task?.value
        } onCancel: {
            task?.cancel()
        }
    }

    /// Cancels the work the action started.
    public func cancel() {
        task?.cancel()
    }

    /// Whether the work has been cancelled.
    public var isCancelled: Bool { task?.isCancelled ?? false }
}

/// The cancellation id of an effect that follows a source for as long as
/// the store lives (a fetched or shared value's): the store's release ends
/// it without a warning.
protocol LastsForTheStore {}
extension FetchEffects: LastsForTheStore {}
