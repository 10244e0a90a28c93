import HTTPTypes

/// Sends one HTTP request and returns the response head and body.
///
/// A transport is the bottom of the stack: it knows the network, nothing of
/// JSON, status validation or retries (those are the client's and the
/// middleware's). Baseline ships ``URLSessionTransport``; tests use
/// `StubTransport` from `BaselineTesting`.
///
/// Conforming types must:
/// - send exactly the request given (its URL comes from scheme, authority and path);
/// - treat task cancellation as a request to stop, and throw `CancellationError`;
/// - return any status code as a response, never as an error: deciding what is
///   acceptable is the client's job.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response.
    func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody)
}
