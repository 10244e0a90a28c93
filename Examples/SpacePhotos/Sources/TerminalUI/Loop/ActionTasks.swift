/// The tasks key presses start (a button's `Task { await model.save() }`),
/// kept so that they end with the app: ``cancelAll()`` cancels those still
/// running, and ``waitForAll()`` waits for them.
@MainActor
public final class ActionTasks {
    private var running: [UInt64: Task<Void, Never>] = [:]
    private var nextID: UInt64 = 0

    /// An empty set of tasks.
    public init() {}

    /// How many are running.
    public var count: Int { running.count }

    /// Starts `operation` on the main actor.
    public func start(_ operation: @escaping @MainActor @Sendable () async -> Void) {
        nextID += 1
        let id = nextID
        running[id] = Task { [weak self] in
            await operation()
            self?.running[id] = nil
        }
    }

    /// Cancels every running task.
    public func cancelAll() {
        for task in running.values { task.cancel() }
    }

    /// Waits until every task started so far has ended.
    public func waitForAll() async {
        for task in Array(running.values) { await task.value }
    }
}
