import HTTPTypes

/// When and how often ``RetryMiddleware`` sends a request again.
///
/// The defaults retry an idempotent request up to twice more (three attempts
/// in all) after a transport failure or a 408, 429, 500, 502, 503 or 504,
/// waiting with exponential backoff and full jitter: before retry *n*, a
/// random delay between zero and `min(maximumDelay, baseDelay × 2ⁿ⁻¹)`. A
/// `Retry-After` from the server replaces that delay, up to
/// ``maximumRetryAfter``.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.maximumAttempts = 5
/// policy.retryableMethods.insert(.post)   // this API's POSTs carry an idempotency key
/// let retry = RetryMiddleware(policy: policy)
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included; 1 never retries.
    public var maximumAttempts: Int
    /// The backoff ceiling before the first retry; it doubles for each further one.
    public var baseDelay: Duration
    /// The highest backoff ceiling.
    public var maximumDelay: Duration
    /// The longest `Retry-After` the client waits for. A server asking for
    /// more gets no retry: its response is returned as it is, so that a
    /// caller is not parked for an hour behind an innocent-looking `await`.
    public var maximumRetryAfter: Duration
    /// Response statuses worth another attempt.
    public var retryableStatuses: Set<Int>
    /// Methods that may be sent again: by default the idempotent ones, which
    /// a server may receive twice without harm.
    public var retryableMethods: Set<HTTPRequest.Method>
    /// Whether a failure to get any response (no connection, a reset) is retried.
    public var retriesTransportErrors: Bool

    /// Creates a policy; the defaults suit an interactive app talking to an API.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        maximumRetryAfter: Duration = .seconds(60),
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableMethods: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options, .trace],
        retriesTransportErrors: Bool = true
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableStatuses = retryableStatuses
        self.retryableMethods = retryableMethods
        self.retriesTransportErrors = retriesTransportErrors
    }

    /// The upper bound of the random delay before retry number `retry` (1 for the first).
    func backoffCeiling(beforeRetry retry: Int) -> Duration {
        let base = baseDelay.seconds
        // Computed in floating point and clamped, so that a large attempt count
        // cannot overflow `Duration`'s integer multiplication.
        let ceiling = min(maximumDelay.seconds, base * pow2(retry - 1))
        return .seconds(max(0, ceiling))
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 1_024 ? .infinity : Double(sign: .plus, exponent: max(0, exponent), significand: 1)
    }

    /// Whether an error thrown by the rest of the chain is worth another attempt.
    func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError:
            return false
        case let error as HTTPClientError:
            switch error {
            case .transport, .timedOut: return retriesTransportErrors
            case let .unacceptableStatus(head, _): return retryableStatuses.contains(head.status.code)
            case .invalidRequest, .decodingFailed, .responseTooLarge, .tooManyRedirects,
                .unacceptableContentType, .authenticationFailed, .fileFailure, .decompressionFailed:
                return false
            }
        default:
            // A transport's own error (URLError and the like) that the client
            // has not wrapped yet.
            return retriesTransportErrors
        }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
