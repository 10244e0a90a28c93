import BaselineConcurrency

/// A publisher finished without the value a bridge waited for.
public enum PublisherBridgeError: Error, Equatable, Sendable {
    /// The publisher completed normally before emitting any value.
    case finishedWithoutValue
}

extension Publisher where Output: Sendable {
    /// The publisher's first value.
    ///
    /// Subscribes, resumes exactly once with the first value (or the failure),
    /// and cancels the subscription when the calling task is cancelled: the
    /// `withCheckedThrowingContinuation` wrapper apps write by hand when they
    /// move Combine code to async/await, written once and tested.
    ///
    /// ```swift
    /// let member = try await requestBuilder.executeWithIDToken().firstValue()
    /// ```
    ///
    /// The subscription is made on the caller's actor (publishers are not
    /// `Sendable`, so they stay where they were built).
    ///
    /// - Throws: The publisher's failure, ``PublisherBridgeError/finishedWithoutValue``
    ///   when it completes without a value, or `CancellationError`.
    public func firstValue(isolation: isolated (any Actor)? = #isolation) async throws -> Output {
        try await withCallback(isolation: isolation) { completion in
            // The first event wins; the completion that follows a value is not news.
            let delivered = LockedValue(false)
            let deliver: @Sendable (Result<Output, any Error>) -> Void = { result in
                let first = delivered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { completion.resume(with: result) }
            }
            let subscription = SubscriptionBox()
            subscription.set(
                self.first().sink(
                    receiveCompletion: { event in
                        if case let .failure(error) = event {
                            deliver(.failure(error))
                        } else {
                            deliver(.failure(PublisherBridgeError.finishedWithoutValue))
                        }
                    },
                    receiveValue: { value in deliver(.success(value)) }
                )
            )
            return CallbackCancellation { subscription.cancel() }
        }
    }

    /// Every value the publisher emits, as an `AsyncThrowingStream` that
    /// finishes when the publisher does. Stopping the iteration (or cancelling
    /// the iterating task) cancels the subscription. Values are buffered while
    /// the reader is busy.
    ///
    /// (Named apart from Combine's own `values`, which is Apple-only and not
    /// throwing for every failure type.)
    public var asyncValues: AsyncThrowingStream<Output, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Output.self, throwing: (any Error).self)
        let subscription = SubscriptionBox()
        continuation.onTermination = { _ in subscription.cancel() }
        subscription.set(
            sink(
                receiveCompletion: { event in
                    if case let .failure(error) = event {
                        continuation.finish(throwing: error)
                    } else {
                        continuation.finish()
                    }
                },
                receiveValue: { value in continuation.yield(value) }
            )
        )
        return stream
    }
}

/// Holds a subscription so that a `@Sendable` cancellation handler can end it.
final class SubscriptionBox: Sendable {
    private let state = LockedValue<State>(.waiting)

    // An AnyCancellable is only touched under the lock, and `cancel()` is
    // documented thread-safe in Combine and OpenCombine.
    private enum State: @unchecked Sendable {  // safety: used only under `state`'s lock
        case waiting
        case active(AnyCancellable)
        case cancelled
    }

    func set(_ cancellable: AnyCancellable) {
        let cancelNow = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .active(cancellable)
            return false
        }
        if cancelNow { cancellable.cancel() }
    }

    func cancel() {
        let active = state.withLock { state -> AnyCancellable? in
            defer { state = .cancelled }
            if case let .active(cancellable) = state { return cancellable }
            return nil
        }
        active?.cancel()
    }
}
