import Logging

/// Bridges a callback-based API to `async`/`await`.
///
/// Use it where you would reach for `withCheckedThrowingContinuation`, and get
/// the three guarantees a hand-written continuation does not give you:
///
/// - **Exactly once.** The first call of the completion wins. A second call is
///   ignored and logged with the call site of `withCallback`, instead of
///   crashing the process.
/// - **A missing callback cannot go unnoticed.** If the API drops the
///   completion without calling it, the `await` ends with
///   ``CallbackBridgeError/completionDropped(fileID:line:)`` rather than
///   suspending forever.
/// - **Cancellation reaches the operation.** When the calling task is cancelled,
///   the ``CallbackCancellation`` you return runs (cancelling the underlying
///   work) and the call throws `CancellationError` at once; a callback that
///   arrives later is ignored.
///
/// ```swift
/// extension LegacyAuthAPI {
///     func logIn(for id: User.ID, with password: String) async throws -> IDToken {
///         try await withCallback { completion in
///             let request = logIn(for: id, with: password, completion: completion.resume(with:))
///             return CallbackCancellation { request.cancel() }
///         }
///     }
/// }
/// ```
///
/// - Parameters:
///   - isolation: The actor the call runs on; `start` runs synchronously there.
///   - logger: Receives the misuse reports (second call, dropped completion);
///     `nil` logs under the label `baseline.callback-bridge`. The delivered
///     value is never logged.
///   - fileID: The file of the call, named in misuse reports and in
///     ``CallbackBridgeError/completionDropped(fileID:line:)``; leave the default.
///   - line: The line of the call, reported with `fileID`; leave the default.
///   - start: Starts the operation, hands it the completion, and returns how to
///     cancel it. If it throws, the call throws that error.
/// - Returns: The value the operation delivered.
/// - Throws: The operation's error, `CancellationError` when the task is
///   cancelled, or ``CallbackBridgeError`` when the completion was dropped.
public func withCallback<Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    logger: Logger? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    _ start: (CallbackCompletion<Value>) throws -> CallbackCancellation
) async throws -> Value {
    // The default logger is made only if there is misuse to report: a
    // `Logger` costs three allocations, and this runs for every request of a
    // URLSession transport.
    let bridge = CallbackBridge<Value>(logger: logger, fileID: fileID, line: line)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            guard bridge.install(continuation) else { return }
            // Keep the completion alive past `start`, so that a throwing
            // `start` reports its own error rather than a dropped completion.
            let completion = CallbackCompletion(bridge)
            withExtendedLifetime(completion) {
                do {
                    bridge.installCancellation(try start(completion))
                } catch {
                    bridge.finish(.failure(error), reason: .completed)
                }
            }
        }
    } onCancel: {
        bridge.cancel()
    }
}

/// How to cancel the operation behind a ``withCallback(isolation:logger:fileID:line:_:)`` call.
public struct CallbackCancellation: Sendable {
    let action: @Sendable () -> Void

    /// Cancellation runs `action`, for example `{ task.cancel() }`.
    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    /// For operations that cannot be cancelled: the call still throws
    /// `CancellationError` at once, and the operation's late result is ignored.
    public static let notSupported = CallbackCancellation {}
}

/// The completion handed to the callback API by
/// ``withCallback(isolation:logger:fileID:line:_:)``.
///
/// Call one of the `resume` methods once. Further calls are ignored and logged.
/// Dropping it without a call ends the `await` with
/// ``CallbackBridgeError/completionDropped(fileID:line:)``.
public final class CallbackCompletion<Value: Sendable>: Sendable {
    private let bridge: CallbackBridge<Value>

    fileprivate init(_ bridge: CallbackBridge<Value>) {
        self.bridge = bridge
    }

    deinit {
        bridge.completionWasDropped()
    }

    /// Delivers the operation's outcome. Pass it as a completion handler:
    /// `api.load(completion: completion.resume(with:))`.
    public func resume(with result: Result<Value, any Error>) {
        bridge.finish(result, reason: .completed)
    }

    /// Delivers the operation's value.
    public func resume(returning value: Value) {
        resume(with: .success(value))
    }

    /// Delivers the operation's error.
    public func resume(throwing error: any Error) {
        resume(with: .failure(error))
    }
}

extension CallbackCompletion where Value == Void {
    /// Delivers completion of an operation that has no value.
    public func resume() {
        resume(with: .success(()))
    }
}

/// Misuse of a callback API detected by ``withCallback(isolation:logger:fileID:line:_:)``.
public enum CallbackBridgeError: Error, Equatable, CustomStringConvertible {
    /// The API released the completion without ever calling it: without the
    /// bridge, the awaiting task would have hung forever.
    case completionDropped(fileID: String, line: Int)

    /// Where the dropped completion was created, for logs and test failures.
    public var description: String {
        switch self {
        case let .completionDropped(fileID, line):
            "The completion passed by withCallback at \(fileID):\(line) was released without being called."
        }
    }
}

/// Shared state of one bridged call: who finished it, and how to cancel it.
///
/// A struct around one lock-and-state allocation, shared by the call, its
/// cancellation handler and its ``CallbackCompletion``.
// The state, logger and call site included, is touched only under the lock.
struct CallbackBridge<Value: Sendable>: @unchecked Sendable {  // safety: see above
    enum Reason { case completed, cancelled, dropped }

    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var finishedBy: Reason?
        var cancellation: CallbackCancellation?
        var isCancelled = false
        let logger: Logger?
        let fileID: String
        let line: Int
    }

    private let state: LockStorage<State>

    fileprivate init(logger: Logger?, fileID: String, line: Int) {
        state = LockStorage.make(holding: State(logger: logger, fileID: fileID, line: line))
    }

    /// Stores the continuation; `false` (after resuming it) when the task was
    /// cancelled before the operation could start.
    fileprivate func install(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let cancelledEarly = state.withLock { state in
            if state.isCancelled {
                state.finishedBy = .cancelled
                return true
            }
            state.continuation = continuation
            return false
        }
        if cancelledEarly { continuation.resume(throwing: CancellationError()) }
        return !cancelledEarly
    }

    fileprivate func installCancellation(_ cancellation: CallbackCancellation) {
        // Cancellation may have arrived while `start` ran: then it is ours to run.
        let runNow = state.withLock { state in
            if state.isCancelled && state.finishedBy == .cancelled { return true }
            state.cancellation = cancellation
            return false
        }
        if runNow { cancellation.action() }
    }

    fileprivate func cancel() {
        let (continuation, cancellation) = state.withLock { state in
            state.isCancelled = true
            guard state.finishedBy == nil, state.continuation != nil else {
                return (CheckedContinuation<Value, any Error>?.none, CallbackCancellation?.none)
            }
            state.finishedBy = .cancelled
            defer {
                state.continuation = nil
                state.cancellation = nil
            }
            return (state.continuation, state.cancellation)
        }
        // Stop the operation before waking the caller, so that when the
        // caller sees `CancellationError`, the operation has been told.
        cancellation?.action()
        continuation?.resume(throwing: CancellationError())
    }

    fileprivate func finish(_ result: Result<Value, any Error>, reason: Reason) {
        let outcome = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Reason?) in
            if let earlier = state.finishedBy { return (nil, earlier) }
            state.finishedBy = reason
            defer {
                state.continuation = nil
                state.cancellation = nil
            }
            return (state.continuation, nil)
        }
        switch outcome {
        case let (continuation?, _):
            continuation.resume(with: result)
        case (nil, .cancelled?) where reason == .completed:
            log(.debug, "Callback arrived after its task was cancelled; ignored")
        case (nil, .completed?) where reason == .completed:
            log(.warning, "Completion called more than once; the extra call was ignored")
        default:
            break
        }
    }

    fileprivate func completionWasDropped() {
        let (wasPending, fileID, line) = state.withLock { ($0.finishedBy == nil, $0.fileID, $0.line) }
        guard wasPending else { return }
        log(.error, "Completion released without being called; the awaiting task fails")
        finish(.failure(CallbackBridgeError.completionDropped(fileID: fileID, line: line)), reason: .dropped)
    }

    /// Reports misuse, with the call site, to the caller's logger or the default one.
    private func log(_ level: Logger.Level, _ message: Logger.Message) {
        let (logger, fileID, line) = state.withLock { ($0.logger, $0.fileID, $0.line) }
        (logger ?? Logger(label: "baseline.callback-bridge")).log(
            level: level,
            message,
            metadata: ["callsite": "\(fileID):\(line)"]
        )
    }
}
