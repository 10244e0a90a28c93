import BaselineConcurrency
import BaselineTesting
import Testing

@Suite("withCallback", .timeLimit(.minutes(1)))
struct CallbackBridgeTests {
    struct Failure: Error, Equatable {}

    @Test func deliversTheValue() async throws {
        let value = try await withCallback { completion in
            completion.resume(returning: 42)
            return .notSupported
        }
        #expect(value == 42)
    }

    @Test func deliversTheError() async {
        await #expect(throws: Failure()) {
            let _: Int = try await withCallback { completion in
                completion.resume(throwing: Failure())
                return .notSupported
            }
        }
    }

    @Test func aCallbackFromAnotherThreadResumesTheCaller() async throws {
        let value: String = try await withCallback { completion in
            Task.detached { completion.resume(returning: "later") }
            return .notSupported
        }
        #expect(value == "later")
    }

    @Test func aSecondCallIsIgnoredAndLogged() async throws {
        let logs = LogRecorder()
        let value = try await withCallback(logger: logs.logger()) { completion in
            completion.resume(returning: 1)
            completion.resume(returning: 2)
            completion.resume(throwing: Failure())
            return .notSupported
        }
        #expect(value == 1)
        let warnings = logs.entries.filter { $0.level == .warning }
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.message.contains("more than once") })
        #expect(warnings.first?.metadata["callsite"]?.contains("CallbackBridgeTests.swift") == true)
    }

    @Test func aDroppedCompletionFailsInsteadOfHanging() async {
        let logs = LogRecorder()
        await #expect {
            let _: Int = try await withCallback(logger: logs.logger()) { _ in .notSupported }
        } throws: { error in
            guard case let .completionDropped(fileID, _) = error as? CallbackBridgeError else { return false }
            return fileID.hasSuffix("CallbackBridgeTests.swift")
        }
        #expect(logs.entries.contains { $0.level == .error && $0.message.contains("without being called") })
    }

    @Test func aThrowingStartReportsItsOwnError() async {
        await #expect(throws: Failure()) {
            let _: Int = try await withCallback { _ in throw Failure() }
        }
    }

    @MainActor
    @Test func startRunsOnTheCallersActor() async throws {
        let value = try await withCallback { completion in
            MainActor.assertIsolated()
            completion.resume(returning: true)
            return .notSupported
        }
        #expect(value)
    }

    @Test func cancellationCancelsTheOperationAndThrowsCancellationError() async throws {
        let logs = LogRecorder()
        let (started, startedSink) = AsyncStream.makeStream(of: CallbackCompletion<Int>.self)
        let operationCancelled = LockedValue(false)

        let call = Task {
            try await withCallback(logger: logs.logger()) { completion in
                startedSink.yield(completion)  // the test holds the completion, like a pending request
                return CallbackCancellation { operationCancelled.withLock { $0 = true } }
            }
        }
        var iterator = started.makeAsyncIterator()
        let completion = try #require(await iterator.next())
        call.cancel()

        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(operationCancelled.current)

        // The operation's own late report is ignored, and noted only at debug level.
        completion.resume(returning: 7)
        #expect(logs.entries.contains { $0.level == .debug && $0.message.contains("after its task was cancelled") })
        #expect(!logs.entries.contains { $0.level >= .warning })
    }

    @Test func aTaskCancelledBeforehandNeverStartsTheOperation() async {
        let started = LockedValue(false)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withCallback { completion in
                started.withLock { $0 = true }
                completion.resume(returning: 1)
                return .notSupported
            }
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(started.current == false)
    }

    @Test func cancellationAfterCompletionChangesNothing() async throws {
        let operationCancelled = LockedValue(false)
        let call = Task {
            try await withCallback { completion in
                completion.resume(returning: 5)
                return CallbackCancellation { operationCancelled.withLock { $0 = true } }
            }
        }
        let value = try await call.value
        call.cancel()
        #expect(value == 5)
        #expect(operationCancelled.current == false)
    }
}
