import HTTPTypes

/// A step between the client and the transport that may adapt the request,
/// inspect or replace the response, or call `next` more than once (a retry).
///
/// Middleware runs in the order given to the client: the first one sees the
/// request first and the response last.
///
/// ```swift
/// struct UserAgent: HTTPMiddleware {
///     var value: String
///     func intercept(_ request: HTTPRequest, body: HTTPBody?, next: @escaping Next) async throws -> (HTTPResponse, HTTPBody) {
///         var request = request
///         request.headerFields[.userAgent] = value
///         return try await next(request, body)
///     }
/// }
/// ```
public protocol HTTPMiddleware: Sendable {
    /// The rest of the chain: the following middleware, then the transport.
    typealias Next = @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody)

    /// Handles one request, passing it on with `next`.
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody)
}

extension HTTPTransport {
    /// This transport behind `middleware`, as one ``HTTPMiddleware/Next`` function.
    func chained(behind middleware: [any HTTPMiddleware]) -> HTTPMiddleware.Next {
        middleware.chained { request, body in try await self.send(request, body: body) }
    }
}

extension Array where Element == any HTTPMiddleware {
    /// These middleware, outermost first, in front of `innermost`, as one
    /// ``HTTPMiddleware/Next`` function.
    func chained(to innermost: @escaping HTTPMiddleware.Next) -> HTTPMiddleware.Next {
        reversed().reduce(innermost) { next, step in
            { request, body in try await step.intercept(request, body: body, next: next) }
        }
    }
}
