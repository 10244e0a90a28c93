import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes

/// A middleware that records every request passing through it, for tests and
/// demos that run against a real transport.
///
/// ``StubTransport`` records what reaches a stub. When the transport is real
/// (a server in the test, a benchmark against the example server), put a
/// recorder in the client's middleware instead: last in the list, it sees each
/// request after every other middleware has added its headers, and each
/// retry; first, it sees what the caller sent, once per call. Redirects the
/// client follows happen nearer the transport and are not recorded.
///
/// ```swift
/// let recorder = RecordingMiddleware()
/// let pipeline = ImagePipeline(client: HTTPClient(baseURL: server.baseURL, middleware: [recorder]))
/// async let first = pipeline.image(for: url)
/// async let second = pipeline.image(for: url)
/// _ = try await (first, second)
/// #expect(recorder.count == 1)  // the two loads shared one download
/// ```
///
/// To act on a request while it is in flight, for example to cancel the call
/// once the transport has it, wait for it with ``waitForRequests(_:)`` or
/// pass `onRequest`.
public final class RecordingMiddleware: HTTPMiddleware {
    private let recorded = LockedValue<[HTTPRequest]>([])
    private let waiters = IdleWaiters()
    private let onRequest: (@Sendable (HTTPRequest) -> Void)?

    /// A recorder that also calls `onRequest` with each request, before
    /// passing it on.
    public init(onRequest: (@Sendable (HTTPRequest) -> Void)? = nil) {
        self.onRequest = onRequest
    }

    /// The request heads seen so far, in the order they passed.
    public var requests: [HTTPRequest] { recorded.current }

    /// How many requests have passed.
    public var count: Int { recorded.withLock { $0.count } }

    /// The latest request to pass, if any.
    public var last: HTTPRequest? { recorded.withLock { $0.last } }

    /// The paths (with queries) of the requests seen so far, in order.
    public var paths: [String] { recorded.withLock { $0.map { $0.path ?? "" } } }

    /// Returns once `count` requests have passed, at once if they already
    /// have.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func waitForRequests(_ count: Int) async throws {
        try await waiters.wait { self.count >= count }
    }

    /// Forgets the requests seen so far.
    public func reset() {
        recorded.withLock { $0.removeAll() }
    }

    /// Records `request`, then passes it on unchanged.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        recorded.withLock { $0.append(request) }
        onRequest?(request)
        waiters.resumeAll()
        return try await next(request, body)
    }
}
