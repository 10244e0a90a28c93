import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes

/// An `HTTPTransport` for unit tests: answers from routes the test sets up,
/// and records every request it sees.
///
/// ```swift
/// let transport = StubTransport()
/// transport.on(.post, "/auth/login", respond: .text(#"{"idToken":"t","expiresIn":3600}"#))
/// let held = transport.hold(.get, "/members/me")     // answers when the test says
///
/// let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
/// ...
/// let call = try await held.nextCall()               // the request has arrived
/// call.resume(returning: .status(.unauthorized))
/// #expect(transport.requests.map(\.path) == ["/auth/login", "/members/me"])
/// ```
///
/// Routes match on method and path (the query is ignored). When several match,
/// the latest added wins. A request no route matches throws
/// ``StubTransportError/noRoute(method:path:)``, so an unexpected request
/// fails the test instead of getting a made-up answer.
public final class StubTransport: HTTPTransport {
    /// Produces the answer to one request.
    public typealias Responder = @Sendable (RecordedRequest) async throws -> StubResponse

    private struct Route {
        var method: HTTPRequest.Method
        var path: String
        var respond: Responder
    }

    private let routes = LockedValue<[Route]>([])
    private let recorded = LockedValue<[RecordedRequest]>([])
    /// The WebSocket routes (see `webSocket(_:script:)`), latest last.
    let webSocketRoutes = LockedValue<[(path: String, server: StubWebSocketServer)]>([])

    /// A transport with no routes.
    public init() {}

    /// Every request sent so far, in order.
    public var requests: [RecordedRequest] { recorded.current }

    /// Answers `method path` with `respond`.
    public func on(_ method: HTTPRequest.Method, _ path: String, respond: @escaping Responder) {
        routes.withLock { $0.append(Route(method: method, path: path, respond: respond)) }
    }

    /// Answers every `method path` request with `response`.
    public func on(_ method: HTTPRequest.Method, _ path: String, respond response: StubResponse) {
        on(method, path) { _ in response }
    }

    /// Answers `method path` requests with `responses`, one each, in order;
    /// a request after the last fails with ``StubTransportError/scriptExhausted(method:path:)``.
    public func on(_ method: HTTPRequest.Method, _ path: String, script responses: [StubResponse]) {
        let remaining = LockedValue(responses[...])
        on(method, path) { request in
            guard let next = remaining.withLock({ $0.popFirst() }) else {
                throw StubTransportError.scriptExhausted(method: request.method, path: request.path)
            }
            return next
        }
    }

    /// Holds `method path` requests until the test answers them through the
    /// returned double (see ``ControllableCall``).
    public func hold(_ method: HTTPRequest.Method, _ path: String) -> ControllableCall<RecordedRequest, StubResponse> {
        let call = ControllableCall<RecordedRequest, StubResponse>()
        on(method, path) { try await call($0) }
        return call
    }

    /// Adds `request` to ``requests``.
    func record(_ request: RecordedRequest) {
        recorded.withLock { $0.append(request) }
    }

    /// Records the request, then answers it from the latest matching route.
    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        try Task.checkCancellation()
        let recordedRequest = RecordedRequest(head: request, body: try await body?.collect(upTo: .max))
        record(recordedRequest)
        let path = recordedRequest.path
        let route = routes.withLock { routes in
            routes.last { $0.method == request.method && $0.path == path }
        }
        guard let route else { throw StubTransportError.noRoute(method: request.method, path: path) }
        let response = try await route.respond(recordedRequest)
        try Task.checkCancellation()
        let head = HTTPResponse(status: response.status, headerFields: response.headerFields)
        if let chunks = response.chunks {
            return (head, HTTPBody(chunks, length: response.streamLength))
        }
        return (head, HTTPBody(response.body))
    }
}

/// Why a ``StubTransport`` could not answer.
public enum StubTransportError: Error, Equatable {
    /// No route matches the request.
    case noRoute(method: HTTPRequest.Method, path: String)
    /// The route's scripted responses have all been used.
    case scriptExhausted(method: HTTPRequest.Method, path: String)
}

/// A request as a ``StubTransport`` received it.
public struct RecordedRequest: Sendable {
    /// The request head.
    public let head: HTTPRequest
    /// The request body, if one was sent.
    public let body: Data?

    /// The method.
    public var method: HTTPRequest.Method { head.method }
    /// The path without the query.
    public var path: String {
        let full = head.path ?? ""
        return full.firstIndex(of: "?").map { String(full[..<$0]) } ?? full
    }
    /// The query items, in order.
    public var query: [URLQueryItem] {
        head.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
    }
    /// The header fields.
    public var headerFields: HTTPFields { head.headerFields }

    /// The body decoded as JSON.
    public func decodeBody<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: body ?? Data())
    }
}

/// An answer of a ``StubTransport``.
public struct StubResponse: Sendable {
    /// The status.
    public var status: HTTPResponse.Status
    /// The header fields.
    public var headerFields: HTTPFields
    /// The body.
    public var body: Data
    /// A body streamed chunk by chunk instead, when set.
    public var chunks: AsyncThrowingStream<Data, any Error>?
    /// The declared length of a streamed body.
    public var streamLength: Int?

    /// Creates a response.
    public init(status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// A body the test feeds chunk by chunk (finish or fail the continuation
    /// to end it); `length` is the declared `Content-Length`, if any.
    ///
    /// ```swift
    /// let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
    /// transport.on(.get, "/events", respond: .streaming(chunks))
    /// feed.yield(Data("{\"id\":1}\n".utf8))
    /// ```
    public static func streaming(
        _ chunks: AsyncThrowingStream<Data, any Error>,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:],
        length: Int? = nil
    ) -> StubResponse {
        var response = StubResponse(status: status, headerFields: headerFields)
        response.chunks = chunks
        response.streamLength = length
        return response
    }

    /// An empty body with `status`.
    public static func status(_ status: HTTPResponse.Status, headerFields: HTTPFields = [:]) -> StubResponse {
        StubResponse(status: status, headerFields: headerFields)
    }

    /// `value` as a JSON body.
    public static func json(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        var fields = headerFields
        fields[.contentType] = "application/json"
        return StubResponse(status: status, headerFields: fields, body: try encoder.encode(value))
    }

    /// Text as the body, sent as it is (use it for malformed JSON, too).
    public static func text(
        _ text: String,
        status: HTTPResponse.Status = .ok,
        contentType: String = "text/plain; charset=utf-8"
    ) -> StubResponse {
        StubResponse(status: status, headerFields: [.contentType: contentType], body: Data(text.utf8))
    }
}
