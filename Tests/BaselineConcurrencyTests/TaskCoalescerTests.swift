import BaselineConcurrency
import BaselineTesting
import Testing

@Suite("TaskCoalescer", .timeLimit(.minutes(1)))
struct TaskCoalescerTests {
    struct Failure: Error, Equatable {}

    let coalescer = TaskCoalescer<String, Int>()
    /// The operation: each run suspends until the test resumes it.
    let operation = ControllableCall<Void, Int>()

    /// Starts `count` callers for `key` and returns once all of them are waiting.
    func startCallers(_ count: Int, key: String = "k") async throws -> [Task<Int, any Error>] {
        let alreadyWaiting = coalescer.waiterCount
        let callers = (0..<count).map { _ in
            Task { [coalescer, operation] in try await coalescer.value(for: key) { try await operation() } }
        }
        try await coalescer.waitUntilWaiting(atLeast: alreadyWaiting + count)
        return callers
    }

    @Test func concurrentCallersShareOneRun() async throws {
        let callers = try await startCallers(5)
        let run = try await operation.nextCall()
        #expect(operation.callCount == 1)
        #expect(coalescer.inFlightCount == 1)
        #expect(coalescer.waiterCount(for: "k") == 5)

        run.resume(returning: 42)
        for caller in callers {
            #expect(try await caller.value == 42)
        }
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func differentKeysRunSeparately() async throws {
        let first = try await startCallers(1, key: "a")
        let second = try await startCallers(1, key: "b")
        let runA = try await operation.nextCall()
        let runB = try await operation.nextCall()
        #expect(coalescer.inFlightCount == 2)
        // The runs start in either order; each answers with its own number.
        runA.resume(returning: 1)
        runB.resume(returning: 2)
        let values = [try await first[0].value, try await second[0].value]
        #expect(values.sorted() == [1, 2])
    }

    @Test func aCancelledCallerLeavesAtOnceAndTheOthersStillGetTheValue() async throws {
        let callers = try await startCallers(3)
        let run = try await operation.nextCall()

        callers[0].cancel()
        await #expect(throws: CancellationError.self) { try await callers[0].value }
        #expect(coalescer.waiterCount(for: "k") == 2)
        #expect(!run.isCancelled)

        run.resume(returning: 7)
        #expect(try await callers[1].value == 7)
        #expect(try await callers[2].value == 7)
    }

    @Test func theRunIsCancelledWhenEveryCallerIsAndTheNextCallStartsAfresh() async throws {
        let callers = try await startCallers(2)
        let run = try await operation.nextCall()

        for caller in callers { caller.cancel() }
        for caller in callers {
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
        #expect(run.isCancelled)
        #expect(coalescer.inFlightCount == 0)

        let later = try await startCallers(1)
        let secondRun = try await operation.nextCall()
        secondRun.resume(returning: 3)
        #expect(try await later[0].value == 3)
        #expect(operation.callCount == 2)
    }

    @Test func withoutCancellingAbandonedWorkTheRunCompletesAndNewCallersJoinIt() async throws {
        let coalescer = TaskCoalescer<String, Int>(cancelsAbandonedWork: false)
        let first = Task { [operation] in try await coalescer.value(for: "k") { try await operation() } }
        try await coalescer.waitUntilWaiting(atLeast: 1)
        let run = try await operation.nextCall()

        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(!run.isCancelled)
        #expect(coalescer.inFlightCount == 1)

        let second = Task { [operation] in try await coalescer.value(for: "k") { try await operation() } }
        try await coalescer.waitUntilWaiting(atLeast: 1)
        run.resume(returning: 9)
        #expect(try await second.value == 9)
        #expect(operation.callCount == 1)
    }

    @Test func anErrorReachesEveryCaller() async throws {
        let callers = try await startCallers(3)
        let run = try await operation.nextCall()
        run.resume(throwing: Failure())
        for caller in callers {
            await #expect(throws: Failure()) { try await caller.value }
        }
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func aCallAfterTheRunEndedRunsTheOperationAgain() async throws {
        let first = try await startCallers(1)
        try await operation.nextCall().resume(returning: 1)
        #expect(try await first[0].value == 1)

        let second = try await startCallers(1)
        try await operation.nextCall().resume(returning: 2)
        #expect(try await second[0].value == 2)
        #expect(operation.callCount == 2)
    }

    @Test func anAlreadyCancelledCallerNeverStartsTheOperation() async throws {
        let caller = Task { [coalescer, operation] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await coalescer.value(for: "k") { try await operation() }
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(operation.callCount == 0)
        #expect(coalescer.inFlightCount == 0)
    }

    // MARK: Priority

    /// A coalescer whose run reports the priority it runs at when the test lets it go on.
    let priorityProbe = TaskCoalescer<String, TaskPriority>()
    let gate = ControllableCall<Void, Void>()

    /// Whether tasks can be escalated by hand, which passing escalation on to
    /// a run needs: always on Linux, from the 2025 OS releases on Apple's.
    static var escalationIsAvailable: Bool {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) { true } else { false }
    }

    /// What the runtime does to a task when someone more urgent awaits it.
    func escalate(_ task: Task<TaskPriority, any Error>, to priority: TaskPriority) {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            task.escalatePriority(to: priority)
        }
    }

    func startProbe(priority: TaskPriority) -> Task<TaskPriority, any Error> {
        Task(priority: priority) { [priorityProbe, gate] in
            try await priorityProbe.value(for: "k") {
                try await gate()
                return Task.currentPriority
            }
        }
    }

    @Test(.enabled(if: Self.escalationIsAvailable, "Escalating a task by hand needs the 2025 OS releases"))
    func aMoreUrgentCallerRaisesTheRunItJoins() async throws {
        let background = startProbe(priority: .background)
        let run = try await gate.nextCall()
        let urgent = startProbe(priority: .high)
        try await priorityProbe.waitUntilWaiting(atLeast: 2)

        run.resume()
        #expect(try await urgent.value >= .high)
        #expect(try await background.value >= .high)
    }

    @Test(.enabled(if: Self.escalationIsAvailable, "Escalating a task by hand needs the 2025 OS releases"))
    func aCallerEscalatedWhileItWaitsRaisesTheRun() async throws {
        let caller = startProbe(priority: .background)
        let run = try await gate.nextCall()
        try await priorityProbe.waitUntilWaiting(atLeast: 1)

        escalate(caller, to: .high)
        run.resume()
        #expect(try await caller.value >= .high)
    }

    @Test(.enabled(if: Self.escalationIsAvailable, "Escalating a task by hand needs the 2025 OS releases"))
    func aCallerEscalatedBeforeItStartsTheRunRaisesIt() async throws {
        // A new task takes its creator's base priority, not an escalation.
        let ready = ControllableCall<Void, Void>()
        let caller = Task(priority: .background) { [priorityProbe, gate] in
            try await ready()
            return try await priorityProbe.value(for: "k") {
                try await gate()
                return Task.currentPriority
            }
        }
        let starting = try await ready.nextCall()
        escalate(caller, to: .high)
        starting.resume()

        let run = try await gate.nextCall()
        run.resume()
        #expect(try await caller.value >= .high)
    }

    @Test func everyCallReturnsUnderRandomCancellation() async throws {
        let coalescer = TaskCoalescer<Int, Int>()
        for _ in 0..<1_000 {
            let outcomes = await withTaskGroup(of: Result<Int, any Error>.self) { group in
                for caller in 0..<8 {
                    group.addTask {
                        let key = caller % 3
                        let call = Task {
                            try await coalescer.value(for: key) {
                                await Task.yield()
                                try Task.checkCancellation()
                                if key == 2 { throw Failure() }
                                return key * 10
                            }
                        }
                        switch Int.random(in: 0..<3) {
                        case 0: call.cancel()
                        case 1:
                            await Task.yield()
                            call.cancel()
                        default: break
                        }
                        return await call.result
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 8)
            for outcome in outcomes {
                switch outcome {
                case let .success(value): #expect([0, 10].contains(value))
                case let .failure(error): #expect(error is CancellationError || error is Failure)
                }
            }
            // Every caller has returned, so no run is left behind.
            #expect(coalescer.inFlightCount == 0)
            #expect(coalescer.waiterCount == 0)
        }
    }
}
