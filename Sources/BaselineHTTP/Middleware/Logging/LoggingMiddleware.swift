import BaselineConcurrency
import HTTPTypes
import Logging

/// Logs each request (method, URL, header fields) and its outcome (status and
/// duration, or the error), with credentials redacted.
///
/// ```swift
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     LoggingMiddleware(logger: Logger(label: "api"), redacting: [HTTPField.Name("X-Api-Key")!]),
///     RetryMiddleware(),
/// ])
/// ```
///
/// Every entry carries `http.id`, a number that pairs a response with its
/// request when several are in flight. Header fields are in the metadata, as
/// `Name: value` lines; `Authorization`, `Proxy-Authorization`, `Cookie` and
/// `Set-Cookie` are always replaced by `<redacted>`, and the policy can hide
/// more fields and query items. Bodies are never logged.
///
/// Ordering: outermost, for one entry per call, cache hits included, with the
/// errors of every other middleware. To see each network attempt (retries,
/// authentication replays) add a second instance innermost, at a lower level.
public struct LoggingMiddleware: HTTPMiddleware {
    private let logger: Logger
    private let requestLevel: Logger.Level
    private let responseLevel: Logger.Level
    private let failureLevel: Logger.Level
    private let redaction: RedactionPolicy
    private let counter = LockedValue(0)

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - logger: Where entries go.
    ///   - requestLevel: The level of the entry for a request about to be sent.
    ///   - responseLevel: The level of the entry for a response, whatever its status.
    ///   - failureLevel: The level of the entry for a thrown error (cancellation
    ///     is logged at `responseLevel`: it is no failure).
    ///   - redacting: What to hide besides the credential fields.
    public init(
        logger: Logger,
        requestLevel: Logger.Level = .debug,
        responseLevel: Logger.Level = .debug,
        failureLevel: Logger.Level = .error,
        redacting: RedactionPolicy = .default
    ) {
        self.logger = logger
        self.requestLevel = requestLevel
        self.responseLevel = responseLevel
        self.failureLevel = failureLevel
        self.redaction = redacting
    }

    /// Logs `request`, passes it on, and logs the response or the error.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        let id = counter.withLock { count -> Int in
            count += 1
            return count
        }
        let summary = "\(request.method) \(redaction.url(request.urlText))"
        logger.log(
            level: requestLevel,
            "→ \(summary)",
            metadata: [
                "http.id": "\(id)",
                "http.request.headers": .array(redaction.lines(for: request.headerFields).map { .string($0) }),
            ]
        )
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let (response, responseBody) = try await next(request, body)
            let elapsed = milliseconds(start.duration(to: clock.now))
            logger.log(
                level: responseLevel,
                "← \(response.status.code) \(summary) (\(elapsed) ms)",
                metadata: [
                    "http.id": "\(id)",
                    "http.status": "\(response.status.code)",
                    "http.duration_ms": "\(elapsed)",
                    "http.response.headers": .array(redaction.lines(for: response.headerFields).map { .string($0) }),
                ]
            )
            return (response, responseBody)
        } catch {
            let elapsed = milliseconds(start.duration(to: clock.now))
            let cancelled = error is CancellationError
            logger.log(
                level: cancelled ? responseLevel : failureLevel,
                "✕ \(summary) \(cancelled ? "cancelled" : "failed") (\(elapsed) ms)",
                metadata: ["http.id": "\(id)", "http.duration_ms": "\(elapsed)", "http.error": "\(error)"]
            )
            throw error
        }
    }

    private func milliseconds(_ duration: Duration) -> Int {
        Int((duration.seconds * 1_000).rounded())
    }
}
