import Foundation
import HTTPTypes

/// Sends a request again after a transport failure or a retryable status,
/// as its ``RetryPolicy`` says.
///
/// ```swift
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     LoggingMiddleware(logger: logger),
///     RetryMiddleware(policy: RetryPolicy(maximumAttempts: 4)),
///     BearerAuthentication(provider: tokens),
/// ])
/// ```
///
/// What it guarantees:
/// - Only requests whose method the policy lists, and whose body can be sent
///   again (none, or one held whole), are retried: a streamed body is never
///   resent half-drained.
/// - Cancellation is never retried: it surfaces as `CancellationError`, also
///   while waiting between attempts.
/// - `HTTPClientError.invalidRequest`, `.responseTooLarge` and `.decodingFailed`,
///   ``HTTPClientError/unacceptableContentType(_:_:)`` and ``HTTPClientError/authenticationFailed(_:)`` are not retried: another
///   attempt would end the same way.
/// - When attempts run out, or `Retry-After` asks for longer than
///   ``RetryPolicy/maximumRetryAfter``, the last response is returned as it is
///   (the client then reports its status, header fields and body).
///
/// Ordering: put it outside authentication (each attempt then gets the current
/// token, and a 401 is the authenticator's to handle) and outside the cache and
/// coalescing (a retried revalidation stays a revalidation); put logging outside
/// it for one entry per call, or inside it for one per attempt.
public struct RetryMiddleware: HTTPMiddleware {
    /// When and how often to retry.
    public let policy: RetryPolicy
    private let clock: any Clock<Duration>
    private let random: @Sendable () -> Double
    private let now: @Sendable () -> Date

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - policy: When and how often to retry.
    ///   - clock: Measures the waits between attempts; tests pass a test clock.
    ///   - random: A number in `0...1` drawn for each backoff (full jitter:
    ///     the delay is this fraction of the ceiling); tests pass a constant.
    ///   - now: The current date, for `Retry-After` dates.
    public init(
        policy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.policy = policy
        self.clock = clock
        self.random = random
        self.now = now
    }

    /// Sends `request`, and again after a retryable failure while the policy allows.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        let mayRetry = policy.retryableMethods.contains(request.method) && body.isReplayable
        var attempt = 1
        while true {
            let delay: Duration
            do {
                let (response, responseBody) = try await next(request, body)
                guard mayRetry, attempt < policy.maximumAttempts,
                    policy.retryableStatuses.contains(response.status.code),
                    let wait = self.delay(beforeRetry: attempt, after: response)
                else { return (response, responseBody) }
                await responseBody.releaseUnread()
                delay = wait
            } catch {
                // A transport may report a cancelled task in its own words.
                if Task.isCancelled, !(error is CancellationError) { throw CancellationError() }
                guard mayRetry, attempt < policy.maximumAttempts, policy.isRetryable(error),
                    let wait = self.delay(beforeRetry: attempt, after: (error as? HTTPClientError)?.responseHead)
                else { throw error }
                delay = wait
            }
            try await clock.sleep(for: delay)
            attempt += 1
        }
    }

    /// The wait before retry number `retry`: what the response's `Retry-After`
    /// asks for, else a jittered backoff; `nil` when `Retry-After` asks for too long.
    private func delay(beforeRetry retry: Int, after response: HTTPResponse?) -> Duration? {
        if let value = response?.headerFields[.retryAfter], let asked = RetryAfter.delay(value, now: now()) {
            return asked <= policy.maximumRetryAfter ? asked : nil
        }
        let fraction = min(1, max(0, random()))
        return .seconds(policy.backoffCeiling(beforeRetry: retry).seconds * fraction)
    }
}
