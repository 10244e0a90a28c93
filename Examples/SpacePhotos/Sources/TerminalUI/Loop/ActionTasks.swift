/// The tasks key presses start (a button's `Task { await model.save() }`),
/// kept so that they end with the app: ``cancelAll()`` cancels those still
/// running that may be cancelled, and ``waitForAll()`` waits for them all.
@MainActor
public final class ActionTasks {
    /// What quitting does to a task still running.
    public enum OnQuit: Sendable {
        /// Cancel it: work whose result only a screen would show (a load, a
        /// login), or work the user agreed to lose.
        case cancel
        /// Let it finish, and wait for it: a short write the user asked for
        /// (adding, editing or deleting an item), which cancelling would roll back.
        case finish
    }

    private var running: [UInt64: (task: Task<Void, Never>, onQuit: OnQuit)] = [:]
    private var nextID: UInt64 = 0

    /// An empty set of tasks.
    public init() {}

    /// How many are running.
    public var count: Int { running.count }

    /// Starts `operation` on the main actor; `onQuit` says what ``cancelAll()`` does to it.
    public func start(onQuit: OnQuit = .cancel, _ operation: @escaping @MainActor @Sendable () async -> Void) {
        nextID += 1
        let id = nextID
        let task = Task { [weak self] in
            await operation()
            self?.running[id] = nil
        }
        running[id] = (task, onQuit)
    }

    /// Cancels every running task started with ``OnQuit/cancel``; the others
    /// run on (``waitForAll()`` waits for them).
    public func cancelAll() {
        for (task, onQuit) in running.values where onQuit == .cancel { task.cancel() }
    }

    /// Waits until every task started so far has ended.
    public func waitForAll() async {
        for (task, _) in Array(running.values) { await task.value }
    }
}
