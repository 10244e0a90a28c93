import BaselineConcurrency
import Foundation
import HTTPTypes

/// Sends identical `GET` and `HEAD` requests that are in flight at the same
/// time once, and gives each caller the response.
///
/// Ten views asking for `/members/me` at once make one network call. Requests
/// are identical when their method, URL and header fields are (the order of
/// differently named fields aside); a request with a body is never coalesced,
/// nor is any other method, nor an upgrade (a WebSocket handshake). Opt in per client:
///
/// ```swift
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     RetryMiddleware(),
///     BearerAuthentication(provider: tokens),
///     RequestCoalescing(),
/// ])
/// ```
///
/// The shared response's body is read whole (up to ``maximumBodySize``, else
/// every caller gets ``HTTPClientError/responseTooLarge(limit:)``), so each
/// caller gets its own copy to read. Only requests in flight are shared: a
/// request that starts after the response arrived is sent again (caching is
/// ``ResponseCache``'s job).
///
/// Cancellation: each caller can be cancelled on its own and then throws
/// `CancellationError` at once; the others keep waiting. The shared call runs
/// in a task of its own (a `TaskCoalescer` from `BaselineConcurrency`), so it is cancelled only when
/// every caller has been.
///
/// Ordering: innermost, or just inside the cache, so that cache misses are
/// coalesced, and inside authentication, so that header fields (the token)
/// are part of what makes requests identical.
public struct RequestCoalescing: HTTPMiddleware {
    private struct Shared: Sendable {
        var response: HTTPResponse
        var body: Data
    }

    /// The largest response body shared; larger ones fail for every caller.
    public let maximumBodySize: Int
    private let calls = TaskCoalescer<HTTPRequest, Shared>()

    /// Creates the middleware.
    ///
    /// - Parameter maximumBodySize: The largest response body read for sharing.
    public init(maximumBodySize: Int = 16 * 1024 * 1024) {
        self.maximumBodySize = maximumBodySize
    }

    /// Sends `request`, or waits for an identical one already in flight and shares its response.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        // An upgrade (a WebSocket handshake) opens a connection for its
        // caller alone.
        guard request.method == .get || request.method == .head, body == nil || body?.knownLength == 0,
            request.headerFields[.upgrade] == nil
        else {
            return try await next(request, body)
        }
        let maximumBodySize = self.maximumBodySize
        let shared = try await calls.value(for: request) {
            let (response, responseBody) = try await next(request, body)
            return Shared(response: response, body: try await responseBody.collect(upTo: maximumBodySize))
        }
        return (shared.response, HTTPBody(shared.body))
    }

    /// How many callers are waiting for a shared call.
    public var waitingCount: Int { calls.waiterCount }

    /// For tests: suspends until `count` callers wait for shared calls.
    package func waitUntilWaiting(atLeast count: Int) async throws {
        try await calls.waitUntilWaiting(atLeast: count)
    }
}
