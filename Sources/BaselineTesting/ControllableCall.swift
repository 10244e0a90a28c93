import BaselineConcurrency

/// A test double for an async function whose calls suspend until the test
/// says how they end.
///
/// Put it behind the dependency you replace; the test then awaits the call,
/// checks the state of the system while the call is in flight, and resumes it.
/// No sleeping, no `Task.yield()` loops:
///
/// ```swift
/// let logIn = ControllableCall<Credentials, Void>()
/// let store = TestStore(initialState: LoginFeature.State(id: "astro", password: "secret")) {
///     LoginFeature()
/// } withDependencies: {
///     $0.session.logIn = { try await logIn(Credentials(id: $0, password: $1)) }
/// }
/// await store.send(.loginButtonTapped) { $0.isLoggingIn = true }
///
/// let call = try await logIn.nextCall()        // the login has started
/// #expect(store.state.isLoginButtonEnabled == false)
/// call.resume(throwing: LoginError.invalidCredentials)
/// await store.receive(.loginFailed(.invalidCredentials)) {
///     $0.isLoggingIn = false
///     $0.errorMessage = .invalidCredentials
/// }
/// ```
///
/// A call whose task is cancelled ends with `CancellationError` at once; its
/// ``Invocation/isCancelled`` turns true and resuming it does nothing.
public final class ControllableCall<Arguments: Sendable, Value: Sendable>: Sendable {
    private struct State {
        var arrived: [Invocation] = []
        var waiters: [CheckedContinuation<Invocation, any Error>] = []
        var waiterIDs: [UInt64] = []
        var nextWaiterID: UInt64 = 0
        /// Waiters cancelled before they were registered.
        var cancelledWaiterIDs: Set<UInt64> = []
        var arguments: [Arguments] = []
    }

    private let state = LockedValue(State())

    /// Creates a double with no calls yet.
    public init() {}

    /// The arguments of every call so far, in the order they started.
    public var calls: [Arguments] { state.withLock { $0.arguments } }

    /// How many calls have started.
    public var callCount: Int { state.withLock { $0.arguments.count } }

    /// Makes a call: suspends until the test resumes it through the
    /// ``Invocation`` that ``nextCall()`` hands out, or the calling task is cancelled.
    public func callAsFunction(_ arguments: Arguments) async throws -> Value {
        let invocation = Invocation(arguments: arguments)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Publish only once the continuation is in place, so a test
                // that resumes straight away always finds someone to resume.
                invocation.install(continuation)
                publish(invocation)
            }
        } onCancel: {
            invocation.cancel()
        }
    }

    /// Waits for the next call that no earlier `nextCall()` has returned, and
    /// returns it. Returns at once when such a call has already started.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func nextCall() async throws -> Invocation {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Invocation, any Error>? in
                    if state.cancelledWaiterIDs.remove(id) != nil { return .failure(CancellationError()) }
                    if !state.arrived.isEmpty { return .success(state.arrived.removeFirst()) }
                    state.waiters.append(continuation)
                    state.waiterIDs.append(id)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Invocation, any Error>? in
                guard let index = state.waiterIDs.firstIndex(of: id) else {
                    // Cancelled before it could wait: tell the waiter when it arrives.
                    state.cancelledWaiterIDs.insert(id)
                    return nil
                }
                state.waiterIDs.remove(at: index)
                return state.waiters.remove(at: index)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func publish(_ invocation: Invocation) {
        let waiter = state.withLock { state -> CheckedContinuation<Invocation, any Error>? in
            state.arguments.append(invocation.arguments)
            guard !state.waiters.isEmpty else {
                state.arrived.append(invocation)
                return nil
            }
            state.waiterIDs.removeFirst()
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: invocation)
    }

    /// One call in flight: the test ends it with a value or an error.
    public final class Invocation: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var isFinished = false
            var isCancelled = false
        }

        /// The arguments the call was made with.
        public let arguments: Arguments
        private let state = LockedValue(State())

        init(arguments: Arguments) {
            self.arguments = arguments
        }

        /// Whether the calling task was cancelled before the test resumed the call.
        public var isCancelled: Bool { state.withLock { $0.isCancelled } }

        /// Ends the call with `value`. Returns `false` when the call had already
        /// ended (resumed before, or cancelled).
        @discardableResult
        public func resume(returning value: Value) -> Bool {
            finish(.success(value))
        }

        /// Ends the call by throwing `error`. Returns `false` when the call had
        /// already ended.
        @discardableResult
        public func resume(throwing error: any Error) -> Bool {
            finish(.failure(error))
        }

        fileprivate func install(_ continuation: CheckedContinuation<Value, any Error>) {
            let cancelledEarly = state.withLock { state -> Bool in
                if state.isCancelled { return true }
                state.continuation = continuation
                return false
            }
            if cancelledEarly { continuation.resume(throwing: CancellationError()) }
        }

        fileprivate func cancel() {
            let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard !state.isFinished else { return nil }
                state.isCancelled = true
                state.isFinished = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }

        private func finish(_ result: Result<Value, any Error>) -> Bool {
            let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard !state.isFinished, let continuation = state.continuation else { return nil }
                state.isFinished = true
                state.continuation = nil
                return continuation
            }
            continuation?.resume(with: result)
            return continuation != nil
        }
    }
}

extension ControllableCall where Arguments == Void {
    /// Makes a call without arguments.
    public func callAsFunction() async throws -> Value {
        try await self(())
    }
}

extension ControllableCall.Invocation where Value == Void {
    /// Ends a call that returns nothing.
    @discardableResult
    public func resume() -> Bool {
        resume(returning: ())
    }
}
