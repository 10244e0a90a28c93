import Foundation
import HTTPTypes

extension HTTPClient {
    /// Sends a request made elsewhere through the client's middleware, and
    /// returns the response whatever its status, as soon as its head arrives.
    ///
    /// This is the entry point for code that builds its own `HTTPRequest`
    /// and decides itself what a status means: a client generated from an
    /// OpenAPI document (`BaselineOpenAPI`'s `OpenAPITransport` calls this),
    /// a proxy, a bridge to another HTTP abstraction. The request still gets
    /// everything the client gives ``Request`` values:
    ///
    /// - the middleware (retry, authentication, cache, coalescing, logging),
    ///   then redirects and decompression;
    /// - the configuration's header fields (`Accept`) and, when the client
    ///   inflates responses, `Accept-Encoding`, each unless the request sets
    ///   that field itself; a default `Content-Type` is left out when there
    ///   is a body, which says what it is;
    /// - the configuration's ``Configuration/timeout``, up to the response head;
    /// - errors as ``HTTPClientError``, and task cancellation as `CancellationError`.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items?page=2")
    /// let response = try await client.exchange(request, body: nil)
    /// if response.status == .notFound { ... }
    /// let items = try await response.body.collect(upTo: 1024 * 1024)
    /// ```
    ///
    /// The request is sent as it is: the client's base URL does not apply,
    /// so it needs its scheme, authority and path (and the path its query).
    /// The status is not checked and the body is not read: read it once, or
    /// ``HTTPBody/discard()`` it. No size limit applies to it (the
    /// configuration's ``Configuration/maximumResponseSize`` is for responses
    /// the client reads whole): bound it as you read, with
    /// ``HTTPBody/collect(upTo:)``. Stopping a read early, or cancelling the
    /// reading task, stops the transfer.
    ///
    /// - Parameters:
    ///   - request: The request head, with an absolute URL.
    ///   - body: The request body, if any. Retry and token refresh send it
    ///     again only if it is ``HTTPBody/isReplayable``.
    /// - Returns: The response head and its body, still arriving.
    /// - Throws: ``HTTPClientError``, or `CancellationError`.
    public func exchange(_ request: HTTPRequest, body: HTTPBody?) async throws -> StreamingResponse {
        var head = request
        head.headerFields = headerFields(merging: request.headerFields, hasBody: body != nil)
        return try await streamingResponse(head, body: body, timeout: configuration.timeout, acceptable: nil)
    }
}
