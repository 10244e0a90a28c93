import BaselineConcurrency
import BaselineStore
import CustomDump
import IssueReporting
import Logging

/// A store for tests that checks every state change and every action effects
/// send back — exhaustive by default, like TCA's.
///
/// ```swift
/// let store = TestStore(initialState: Counter.State()) { Counter(factClient: .init { "\($0) is odd" }) }
/// await store.send(.increment) { $0.count = 1 }
/// await store.send(.refresh) { $0.isLoading = true }
/// await store.receive(.factResponse("1 is odd")) {
///     $0.isLoading = false
///     $0.fact = "1 is odd"
/// }
/// await store.finish()
/// ```
///
/// - `send` fails on any state change the closure did not describe, and shows
///   a diff of expected and actual state.
/// - Actions sent by effects wait in a queue until `receive` takes them (the
///   reducer runs then), so a test asserts each in order. `receive` waits for
///   the action without sleeping, and fails at once when no running effect
///   could still send it.
/// - `finish()` waits for effects to end; at the end of a test, effects still
///   running or received actions not asserted are failures. An effect ends a
///   moment after it sends its last action, so end a test that started
///   effects with `await store.finish()`.
///
/// With ``exhaustivity`` `.off` (integration-style tests), `send` and
/// `receive` check only what their closures state, unasserted actions are
/// skipped, and running effects at the end are not failures.
@MainActor
public final class TestStore<State: Equatable, Action: Equatable> {
    /// How strict the store is.
    public enum Exhaustivity: Sendable, Equatable {
        /// Every state change and every received action must be asserted.
        case on
        /// Only what the test states is checked.
        case off
    }

    /// The current state.
    public private(set) var state: State
    /// How strict the store is.
    public var exhaustivity: Exhaustivity = .on {
        didSet { endOfTest.withLock { $0.exhaustive = exhaustivity == .on } }
    }

    private let reducer: any Reducer<State, Action>
    private let runner: EffectRunner<Action>
    private var received: [Action] = [] {
        // Summaries, not full descriptions: an action carrying 10,000 rows
        // would cost seconds to dump each time one arrives.
        // Actions join at the end and leave from the front: only the change is summarised.
        didSet {
            let (old, new) = (oldValue.count, received.count)
            let joined = new > old ? received.suffix(new - old).map(summary(of:)) : []
            endOfTest.withLock { end in
                if new < old { end.unasserted.removeFirst(min(old - new, end.unasserted.count)) }
                end.unasserted += joined
                if end.unasserted.count != new { end.unasserted = received.map(summary(of:)) }  // any other change
            }
        }
    }
    /// What `deinit` (which cannot touch main-actor state) needs to judge the test's end.
    private let endOfTest = LockedValue<(exhaustive: Bool, unasserted: [String])>((true, []))
    private var arrival: CheckedContinuation<Void, Never>?
    private let location: SourceLocation
    /// Bound while the reducer runs and its effects start (which inherit them).
    private let dependencies: DependencyValues

    /// A test store running `reducer` from `initialState`. Failures at the end
    /// of the test (effects still running, actions not asserted) are reported
    /// at this call site.
    ///
    /// The reducer and its effects run with each dependency's test value
    /// (`DependencyKey.testValue`) unless `withDependencies`
    /// overrides it; a test value made with `unimplemented` fails the test
    /// when it is called.
    ///
    /// ```swift
    /// let store = TestStore(initialState: Counter.State()) {
    ///     Counter()
    /// } withDependencies: {
    ///     $0.factClient.fetch = { "\($0) is a good number" }
    /// }
    /// ```
    public init<R: Reducer>(
        initialState: State,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        reducer: () -> R,
        withDependencies: (inout DependencyValues) -> Void = { _ in }
    ) where R.State == State, R.Action == Action {
        self.state = initialState
        var dependencies = DependencyValues(context: .test)
        dependencies.reportUnimplemented = { message, fileID, filePath, line in
            reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: 1)
        }
        // Shared in-memory values are this test's own: tests run side by side.
        dependencies.sharedValues = SharedValues()
        withDependencies(&dependencies)
        // Built with the test's dependencies, as a store builds with its own.
        self.reducer = DependencyValues.$current.withValue(dependencies) { reducer()._built() }
        self.dependencies = dependencies
        self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        var logger = Logger(label: "baseline.test-store")
        logger.logLevel = .critical
        let target = WeakBox<TestStore>()
        self.runner = EffectRunner(logger: logger) { action in
            target.value?.enqueue(action)
            return .none
        }
        target.value = self
    }

    deinit {
        let leftovers = runner.cancelAll()
        let (exhaustive, received) = endOfTest.current
        let location = self.location
        guard exhaustive else { return }
        if !leftovers.isEmpty {
            reportIssue(
                "The test ended with \(leftovers.count) effect(s) still running: \(leftovers.joined(separator: "; ")). Await `store.finish()`, or cancel them.",
                fileID: location.fileID,
                filePath: location.filePath,
                line: location.line,
                column: location.column
            )
        }
        if !received.isEmpty {
            reportIssue(
                "The test ended with received actions not asserted: \(received.joined(separator: ", "))",
                fileID: location.fileID,
                filePath: location.filePath,
                line: location.line,
                column: location.column
            )
        }
    }

    /// How many effects are running.
    public var runningEffectCount: Int { runner.runningCount }

    /// Sends `action` and checks the state change against `updateExpected`,
    /// which turns the previous state into the expected one.
    ///
    /// - Returns: The task standing for the effects the action started.
    @discardableResult
    public func send(
        _ action: Action,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async -> StoreTask {
        let here = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if exhaustivity == .on, !received.isEmpty {
            fail(
                "Must handle \(received.count) received action(s) before sending \(describe(action)): \(received.map { describe($0) }.joined(separator: ", "))",
                at: here
            )
        }
        return apply(action, assert: updateExpected, verb: "send", at: here)
    }

    /// Waits for an effect to send `expected`, runs the reducer with it, and
    /// checks the state change.
    ///
    /// Fails when the next received action is another (exhaustive), or when
    /// no effect is left that could send it.
    public func receive(
        _ expected: Action,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let here = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        while true {
            if let index = received.firstIndex(of: expected), exhaustivity == .off || index == 0 {
                // Actions skipped on the way (non-exhaustive) still run, as in
                // a real store: their state changes and effects happen.
                let skipped = received.prefix(index)
                received.removeFirst(index + 1)
                for action in skipped { _ = apply(action, assert: nil, verb: "receive", at: here, check: false) }
                _ = apply(expected, assert: updateExpected, verb: "receive", at: here)
                return
            }
            if let next = received.first, exhaustivity == .on {
                fail(
                    "Expected to receive \(describe(expected)), but received \(describe(next)): (− expected, + received)\n\(diff(expected, next, format: .proportional) ?? "")",
                    at: here
                )
                received.removeFirst()
                return
            }
            if runner.runningCount == 0 {
                fail(
                    "Expected to receive \(describe(expected)), but no effect is running that could send it.",
                    at: here
                )
                return
            }
            if Task.isCancelled {
                fail(
                    "Cancelled (a time limit?) while waiting to receive \(describe(expected)); received so far: \(received.map { describe($0) })",
                    at: here
                )
                return
            }
            await waitForArrivalOrEffectEnd()
        }
    }

    /// Waits until every running effect has finished.
    public func finish(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        while runner.runningCount > 0 {
            if Task.isCancelled {
                fail(
                    "Cancelled (a time limit?) while waiting for \(runner.runningCount) effect(s) to finish",
                    at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
                )
                return
            }
            await waitForArrivalOrEffectEnd()
        }
        if exhaustivity == .on, !received.isEmpty {
            fail(
                "Received actions not asserted: \(received.map { describe($0) }.joined(separator: ", "))",
                at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
            )
            received.removeAll()
        }
    }

    /// Runs the received actions without asserting them (their state changes
    /// and effects happen, as in a real store).
    public func skipReceivedActions(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let here = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let skipped = received
        received.removeAll()
        for action in skipped { _ = apply(action, assert: nil, verb: "receive", at: here, check: false) }
    }

    // MARK: Internals

    private func apply(
        _ action: Action,
        assert updateExpected: ((inout State) throws -> Void)?,
        verb: String,
        at location: SourceLocation,
        check: Bool = true
    ) -> StoreTask {
        DependencyValues.$current.withValue(dependencies) {
            reduce(action, assert: updateExpected, verb: verb, at: location, check: check)
        }
    }

    private func reduce(
        _ action: Action,
        assert updateExpected: ((inout State) throws -> Void)?,
        verb: String,
        at location: SourceLocation,
        check: Bool
    ) -> StoreTask {
        let previous = state
        let effect = reducer.reduce(into: &state, action: action)
        guard check else { return runner.start(effect, for: action) }
        var expected = exhaustivity == .on ? previous : state
        do {
            try updateExpected?(&expected)
        } catch {
            fail("The assertion closure threw \(error)", at: location)
        }
        if expected != state {
            let difference = diff(expected, state, format: .proportional).map { "\n\($0)" } ?? ""
            fail(
                "State after \(verb) \(describe(action)) differs from the expected state: (− expected, + actual)\(difference)",
                at: location
            )
        }
        return runner.start(effect, for: action)
    }

    private func enqueue(_ action: Action) {
        received.append(action)
        wake()
    }

    private func wake() {
        arrival?.resume()
        arrival = nil
    }

    /// Suspends until an action arrives, an effect ends or the waiting task
    /// is cancelled (a test's time limit cancels it), so a test whose effect
    /// never ends fails instead of hanging.
    private func waitForArrivalOrEffectEnd() async {
        let running = runner.runningTasks
        // Made here, on the main actor, for the cancellation handler to call.
        let wakeUp: @MainActor @Sendable () -> Void = { [weak self] in self?.wake() }
        await withTaskCancellationHandler {
            await waitForArrivalOrEffectEnd(running)
        } onCancel: {
            Task { @MainActor in wakeUp() }
        }
    }

    private func waitForArrivalOrEffectEnd(_ running: [Task<Void, Never>]) async {
        await withCheckedContinuation { continuation in
            arrival = continuation
            // Whichever comes first wakes us: an arrival (enqueue) or an effect ending.
            for task in running {
                Task { [weak self] in
                    await task.value
                    self?.wake()
                }
            }
            if running.isEmpty { wake() }
            onWait?()
        }
    }

    /// Called each time `receive` or `finish()` suspends to wait: lets this
    /// package's own tests cancel a wait that is under way.
    package var onWait: (@MainActor () -> Void)?

    private func fail(_ message: String, at location: SourceLocation) {
        reportIssue(
            message,
            fileID: location.fileID,
            filePath: location.filePath,
            line: location.line,
            column: location.column
        )
    }

    private struct SourceLocation: Sendable {
        var fileID: StaticString
        var filePath: StaticString
        var line: UInt
        var column: UInt
    }
}

/// An action as a failure message names it: on one line when it fits
/// (`Documents.Action.sheet(.presented(.loaded("draft")))`), as CustomDump
/// prints it otherwise.
func describe(_ value: some Any) -> String {
    let dump = String(customDumping: value)
    guard dump.contains("\n") else { return dump }
    var line = ""
    for part in dump.split(separator: "\n") {
        let trimmed = part.drop { $0 == " " }
        if line.hasSuffix(",") { line += " " }
        line += trimmed
    }
    return line.count <= 120 ? line : dump
}

/// Holds the test store weakly for its effects' `send`, set once `self` exists.
@MainActor
private final class WeakBox<Object: AnyObject> {
    weak var value: Object?
}

/// An action's cases, without their values: `todos(.loaded(…))`. Cheap
/// whatever the action carries, for the end-of-test report.
func summary(of value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum else { return "…" }
    guard let child = mirror.children.first, let label = child.label else {
        return "\(value)"  // a case without a payload: its name
    }
    let payload = Mirror(reflecting: child.value)
    if payload.displayStyle == .enum { return "\(label)(.\(summary(of: child.value)))" }
    if payload.displayStyle == .tuple, payload.children.count == 1, let only = payload.children.first,
        Mirror(reflecting: only.value).displayStyle == .enum
    {
        return "\(label)(.\(summary(of: only.value)))"
    }
    return "\(label)(…)"
}
