import Dispatch

/// Runs async work to its end from libFuzzer's synchronous callback. A fuzz
/// harness only: it blocks the calling thread, which library code never does.
public func synchronously<Value: Sendable>(
    _ work: @escaping @Sendable () async throws -> Value
) -> Result<Value, any Error> {
    let box = ResultBox<Value>()
    let done = DispatchSemaphore(value: 0)
    // Starts on this thread and, as the fuzzed sequences never suspend,
    // ends on it too: a hop to another thread costs milliseconds under
    // AddressSanitizer on a busy machine. The semaphore covers a suspension.
    Task.immediate {
        do {
            box.result = .success(try await work())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    // The semaphore orders the task's write before this read.
    return box.result ?? .failure(CancellationError())
}

// safety: written once by the task before it signals the semaphore, read by
// the waiting thread only after the wait returns.
private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

/// The outcome of async work, error and all: several outcomes can be taken
/// in one `synchronously` call, which costs a thread hop each.
public func outcome<Value: Sendable>(_ work: () async throws -> Value) async -> Result<Value, any Error> {
    do {
        return .success(try await work())
    } catch {
        return .failure(error)
    }
}
