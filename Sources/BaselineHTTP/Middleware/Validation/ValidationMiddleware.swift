import Foundation
import HTTPTypes

/// Rejects responses whose status or content type the app cannot use, before
/// anything tries to decode them.
///
/// ```swift
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     LoggingMiddleware(logger: logger),
///     ValidationMiddleware(acceptableContentTypes: [.json]),
///     RetryMiddleware(),
/// ])
/// ```
///
/// - A status outside ``acceptableStatusCodes`` throws
///   ``HTTPClientError/unacceptableStatus(_:body:)`` with the head and up to
///   ``maximumErrorBodySize`` bytes of the body (the server's error document).
///   `HTTPClient` already checks statuses, per request; use this check where
///   the chain itself must stop at a bad status (it cannot see a request's own
///   `acceptableStatusCodes`, so leave it `nil` when requests widen them).
/// - A `Content-Type` outside ``acceptableContentTypes`` throws
///   ``HTTPClientError/unacceptableContentType(_:_:)``. Responses without
///   content are not checked: a `HEAD` request's, 1xx, 204, 205 and 304
///   responses, and bodies known to be empty.
///
/// Ordering: put it near the outside, after logging and before retry, so it
/// judges the final response after retries and authentication, and its
/// errors get logged. Inside ``RetryMiddleware`` a retryable status it throws
/// is still retried, but the body read for the error is then wasted.
public struct ValidationMiddleware: HTTPMiddleware {
    /// The statuses that pass; `nil` does not check statuses.
    public var acceptableStatusCodes: Range<Int>?
    /// The content types that pass; empty accepts any.
    public var acceptableContentTypes: [MediaTypeRange]
    /// Whether `application/problem+json` passes for `application/json`.
    public var allowsStructuredSyntaxSuffix: Bool
    /// How much of a rejected response's body is kept for the error.
    public var maximumErrorBodySize: Int

    /// Creates the middleware.
    public init(
        acceptableStatusCodes: Range<Int>? = 200..<300,
        acceptableContentTypes: [MediaTypeRange] = [],
        allowsStructuredSyntaxSuffix: Bool = true,
        maximumErrorBodySize: Int = 64 * 1024
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.allowsStructuredSyntaxSuffix = allowsStructuredSyntaxSuffix
        self.maximumErrorBodySize = maximumErrorBodySize
    }

    /// Sends `request` and throws for a response whose status or content type is not acceptable.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        let (response, responseBody) = try await next(request, body)
        if let acceptableStatusCodes, !acceptableStatusCodes.contains(response.status.code) {
            throw HTTPClientError.unacceptableStatus(response, body: try await errorDocument(responseBody))
        }
        if !acceptableContentTypes.isEmpty, hasContent(response, body: responseBody, request: request) {
            let contentType = response.headerFields[.contentType]
            let accepted =
                contentType.map { value in
                    acceptableContentTypes.contains { $0.matches(value, allowingSuffix: allowsStructuredSyntaxSuffix) }
                } ?? false
            guard accepted else {
                await responseBody.releaseUnread()
                throw HTTPClientError.unacceptableContentType(contentType, response)
            }
        }
        return (response, responseBody)
    }

    private func hasContent(_ response: HTTPResponse, body: HTTPBody, request: HTTPRequest) -> Bool {
        if request.method == .head || response.status.kind == .informational { return false }
        if [204, 205, 304].contains(response.status.code) { return false }
        return body.knownLength != 0
    }

    /// The start of a rejected body, for the error; empty when it cannot be
    /// read or is larger than the limit. Cancellation still surfaces.
    private func errorDocument(_ body: HTTPBody) async throws -> Data {
        do {
            return try await body.collect(upTo: maximumErrorBodySize)
        } catch {
            try Task.checkCancellation()
            return Data()
        }
    }
}
