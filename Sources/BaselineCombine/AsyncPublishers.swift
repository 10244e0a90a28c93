import BaselineConcurrency
import Foundation

/// A publisher that runs an async operation for each subscriber and emits its
/// one result: async code offered to a Combine pipeline.
///
/// ```swift
/// func executeWithIDToken() -> AnyPublisher<User, APIClientError> {
///     TaskPublisher { [request, client] in
///         try await client.send(request.header(.authorization, "Bearer \(try await tokens.current())")).value
///     }
///     .mapError(APIClientError.init)
///     .eraseToAnyPublisher()
/// }
/// ```
///
/// The operation starts when demand arrives and its task is cancelled when
/// the subscription is.
public struct TaskPublisher<Output: Sendable>: Publisher, Sendable {
    /// Any error the operation throws.
    public typealias Failure = any Error

    let operation: @Sendable () async throws -> Output

    /// A publisher whose subscribers each get one run of `operation`.
    public init(_ operation: @escaping @Sendable () async throws -> Output) {
        self.operation = operation
    }

    /// Attaches `subscriber`; the operation starts when it first asks for a value.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
        let subscription = TaskSubscription(subscriber: AnySubscriber(subscriber), operation: operation)
        subscriber.receive(subscription: subscription)
    }
}

extension AsyncSequence where Element: Sendable, Self: Sendable {
    /// The sequence as a publisher: each subscriber iterates it, as fast as its
    /// demand allows; cancelling the subscription cancels the iteration.
    public var publisher: AsyncSequencePublisher<Self> {
        AsyncSequencePublisher(self)
    }
}

/// A publisher that iterates an async sequence for each subscriber.
public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    /// The elements of the base sequence.
    public typealias Output = Base.Element
    /// Any error the sequence throws.
    public typealias Failure = any Error

    let base: Base

    /// A publisher over `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Attaches `subscriber`; the sequence is iterated as its demand allows.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
        let subscription = SequenceSubscription(subscriber: AnySubscriber(subscriber), base: base)
        subscriber.receive(subscription: subscription)
    }
}

/// Runs one operation on first demand and delivers its result.
private final class TaskSubscription<Output: Sendable>: Subscription, Sendable {
    typealias Downstream = AnySubscriber<Output, any Error>

    private struct State {
        var downstream: Downstream?
        var task: Task<Void, Never>?
    }

    // safety: the downstream subscriber (not Sendable) is stored and taken
    // out only under `state`'s lock, and called outside it — never under it,
    // since a subscriber may call `request` or `cancel` from `receive` and
    // would deadlock. Combine requires the calls into a subscriber to be
    // serial: `deliver` takes the subscriber out (leaving nil) before calling
    // it, so at most one task ever calls it, once.
    private let state: UncheckedLockedState<State>
    private let operation: @Sendable () async throws -> Output

    init(subscriber: Downstream, operation: @escaping @Sendable () async throws -> Output) {
        self.state = UncheckedLockedState(State(downstream: subscriber))
        self.operation = operation
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        state.withLock { state in
            guard state.task == nil, state.downstream != nil else { return }
            let operation = self.operation
            state.task = Task { [weak self] in
                let result: Result<Output, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                self?.deliver(result)
            }
        }
    }

    private func deliver(_ result: Result<Output, any Error>) {
        guard
            let downstream = state.withLock({ state -> Downstream? in
                defer { state.downstream = nil }
                return state.downstream
            })
        else { return }
        switch result {
        case let .success(value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case let .failure(error):
            downstream.receive(completion: .failure(error))
        }
    }

    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.downstream = nil
            return state.task
        }
        task?.cancel()
    }
}

/// Iterates the sequence, sending elements while there is demand.
private final class SequenceSubscription<Base: AsyncSequence & Sendable>: Subscription, Sendable
where Base.Element: Sendable {
    typealias Downstream = AnySubscriber<Base.Element, any Error>

    private struct State {
        var downstream: Downstream?
        var demand: Subscribers.Demand = .none
        var waitingForDemand: CheckedContinuation<Void, Never>?
        var isStarted = false
        var task: Task<Void, Never>?
    }

    // safety: as for TaskSubscription, the subscriber is stored and taken out
    // only under the lock and called outside it. Every call into it comes
    // from the one iterating task, in order (`finish` included), which makes
    // the calls serial as Combine requires; a `cancel` meanwhile only clears
    // the stored reference.
    private let state: UncheckedLockedState<State>
    private let base: Base

    init(subscriber: Downstream, base: Base) {
        self.state = UncheckedLockedState(State(downstream: subscriber))
        self.base = base
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        let (start, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            state.demand += demand
            defer { state.waitingForDemand = nil }
            let start = !state.isStarted && state.downstream != nil
            state.isStarted = true
            return (start, state.waitingForDemand)
        }
        waiter?.resume()
        guard start else { return }
        let base = self.base
        let task = Task { [weak self] in
            do {
                for try await element in base {
                    guard let self, await self.takeDemand() else { return }
                    guard let downstream = self.state.withLock({ $0.downstream }) else { return }
                    let more = downstream.receive(element)
                    self.state.withLock { $0.demand += more }
                }
                self?.finish(.finished)
            } catch {
                self?.finish(Task.isCancelled ? .finished : .failure(error))
            }
        }
        let cancelledMeanwhile = state.withLock { state -> Bool in
            state.task = task
            return state.downstream == nil
        }
        if cancelledMeanwhile { task.cancel() }
    }

    /// Waits for demand and takes one unit of it; `false` when cancelled.
    private func takeDemand() async -> Bool {
        while true {
            let ready = state.withLock { state -> Bool? in
                guard state.downstream != nil else { return nil }
                if state.demand > .none {
                    state.demand -= 1
                    return true
                }
                return false
            }
            switch ready {
            case nil: return false
            case true?: return true
            case false?:
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.demand > .none || state.downstream == nil { return true }
                        state.waitingForDemand = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    private func finish(_ completion: Subscribers.Completion<any Error>) {
        let downstream = state.withLock { state -> Downstream? in
            defer { state.downstream = nil }
            return state.downstream
        }
        downstream?.receive(completion: completion)
    }

    func cancel() {
        let (task, waiter) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            state.downstream = nil
            defer { state.waitingForDemand = nil }
            return (state.task, state.waitingForDemand)
        }
        waiter?.resume()
        task?.cancel()
    }
}

/// A lock around state that holds non-Sendable values (a Combine subscriber).
///
/// The lock makes access to the state itself race-free; a non-Sendable value
/// taken out of it and used on another thread is the user's to justify (each
/// use above says why its subscriber may be called from its task).
// `value` is read and written only inside `withLock`, under `lock`; what
// leaves the lock is covered by each user's own safety comment.
final class UncheckedLockedState<Value>: @unchecked Sendable {  // safety: every access holds `lock` (above)
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
