import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes

extension StubTransport: WebSocketTransport {
    /// Accepts WebSocket handshakes to `path` (query ignored), or answers
    /// them from `script` one by one; the returned server hands the test
    /// each connection as it opens.
    ///
    /// ```swift
    /// let transport = StubTransport()
    /// let server = transport.webSocket("/favourites/live")
    /// let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
    ///
    /// let socket = try await client.webSocket(.get("/favourites/live"))
    /// let connection = try await server.nextConnection()
    /// connection.deliver(.text(#"{"photo":"earthrise","count":3}"#))
    /// #expect(try await socket.receive() == .text(#"{"photo":"earthrise","count":3}"#))
    /// ```
    ///
    /// Handshakes are recorded in ``requests`` with the HTTP ones. One to a
    /// path with no WebSocket route throws ``StubTransportError/noRoute(method:path:)``;
    /// one past the end of `script` throws ``StubTransportError/scriptExhausted(method:path:)``.
    @discardableResult
    public func webSocket(_ path: String, script: [StubWebSocketServer.Answer]? = nil) -> StubWebSocketServer {
        let server = StubWebSocketServer(script: script)
        webSocketRoutes.withLock { $0.append((path, server)) }
        return server
    }

    /// Records the handshake and answers it from the latest WebSocket route
    /// for its path.
    public func openWebSocket(_ request: HTTPRequest, limits: WebSocketLimits) async throws -> WebSocketHandshake {
        try Task.checkCancellation()
        let recordedRequest = RecordedRequest(head: request, body: nil)
        record(recordedRequest)
        let path = recordedRequest.path
        guard let server = webSocketRoutes.withLock({ $0.last { $0.path == path }?.server }) else {
            throw StubTransportError.noRoute(method: request.method, path: path)
        }
        return try server.answer(request, limits: limits)
    }
}

/// The server side of a ``StubTransport`` WebSocket route: see
/// ``StubTransport/webSocket(_:script:)``.
public final class StubWebSocketServer: Sendable {
    /// How the stub answers one handshake.
    public enum Answer: Sendable {
        /// Switches protocols (101) and opens a connection.
        case accept
        /// Refuses the upgrade with this response.
        case refuse(StubResponse)
    }

    private let script: LockedValue<ArraySlice<Answer>?>
    private let connections = TestQueue<StubWebSocket>()
    private let opened = LockedValue<[StubWebSocket]>([])

    init(script: [Answer]?) {
        self.script = LockedValue(script?[...])
    }

    /// Every connection opened so far, in order.
    public var allConnections: [StubWebSocket] { opened.current }

    /// Waits for the next connection the client opens (or returns one that
    /// opened before and was not taken yet).
    public func nextConnection() async throws -> StubWebSocket {
        try await connections.next()
    }

    func answer(_ request: HTTPRequest, limits: WebSocketLimits) throws -> WebSocketHandshake {
        let answer = try script.withLock { script -> Answer in
            guard script != nil else { return .accept }
            guard let next = script?.popFirst() else {
                throw StubTransportError.scriptExhausted(method: request.method, path: request.path ?? "")
            }
            return next
        }
        switch answer {
        case .accept:
            let connection = StubWebSocket(request: request, limits: limits)
            opened.withLock { $0.append(connection) }
            connections.append(connection)
            return .upgraded(
                HTTPResponse(status: .switchingProtocols, headerFields: [.upgrade: "websocket"]),
                connection
            )
        case let .refuse(response):
            let head = HTTPResponse(status: response.status, headerFields: response.headerFields)
            return .refused(head, body: HTTPBody(response.body))
        }
    }
}

/// One connection of a ``StubWebSocketServer``: the test plays the server,
/// delivering messages and closes, reading what the client sent, and
/// answering or ignoring its pings.
///
/// Nothing here sleeps: each `next…` call suspends until the client does
/// the thing, so a test reads as the conversation it checks.
public final class StubWebSocket: WebSocketConnection {
    /// Whether pings get their pong.
    public enum PingAnswer: Sendable {
        /// Every ping is answered at once (the default).
        case pong
        /// Pings are never answered, as from a peer that is gone: a ping
        /// waits until the connection closes or the pinging task is cancelled.
        case ignore
    }

    private struct State {
        var closedByClient: (code: WebSocketCloseCode, reason: String)?
        var peerEvent: WebSocketEvent?
        var pingAnswer = PingAnswer.pong
        var sent: [WebSocketMessage] = []
        var pingCount = 0
    }

    /// The handshake that opened the connection.
    public let request: HTTPRequest
    /// The limits the client asked the transport to enforce.
    public let limits: WebSocketLimits
    private let state = LockedValue(State())
    private let inbound = TestQueue<WebSocketEvent>()
    private let outbound = TestQueue<WebSocketMessage>()
    private let pings = TestQueue<Int>()
    private let closes = TestQueue<WebSocketCloseCode>()
    private let unanswered = TestQueue<Void>()

    init(request: HTTPRequest, limits: WebSocketLimits) {
        self.request = request
        self.limits = limits
    }

    // MARK: The test's side

    /// Sends `message` to the client.
    public func deliver(_ message: WebSocketMessage) {
        inbound.append(.message(message))
    }

    /// Closes the connection from the server's side with `code` (`nil`: a
    /// close frame without one) and `reason`.
    public func closeFromServer(_ code: WebSocketCloseCode?, reason: String = "") {
        inbound.append(.closed(code, reason: reason))
        inbound.fail(WebSocketError.notConnected)
        endPings()
    }

    /// Ends the connection without a close frame: the client's next receive
    /// throws `error`.
    public func drop(_ error: WebSocketError = .connectionLost("dropped by the test")) {
        inbound.fail(error)
        endPings()
    }

    /// How pings are answered from now on.
    public func answerPings(_ answer: PingAnswer) {
        state.withLock { $0.pingAnswer = answer }
    }

    /// Waits for the client's next message.
    public func nextSent() async throws -> WebSocketMessage {
        try await outbound.next()
    }

    /// Every message the client sent, in order.
    public var sent: [WebSocketMessage] { state.current.sent }

    /// Waits for the client's next ping and returns how many it has sent.
    @discardableResult
    public func nextPing() async throws -> Int {
        try await pings.next()
    }

    /// Waits until the client closes the connection, and returns its code.
    public func nextClose() async throws -> WebSocketCloseCode {
        try await closes.next()
    }

    /// The code and reason the client closed with, once it has.
    public var closedByClient: (code: WebSocketCloseCode, reason: String)? { state.current.closedByClient }

    // MARK: The client's side

    /// The next event the test delivered.
    public func receive() async throws -> WebSocketEvent {
        if let event = state.current.peerEvent { return event }
        let event = try await inbound.next()
        if case .closed = event { state.withLock { $0.peerEvent = event } }
        return event
    }

    /// Records `message` for ``nextSent()``.
    public func send(_ message: WebSocketMessage) async throws {
        try Task.checkCancellation()
        let open = state.withLock { state in
            guard state.closedByClient == nil, state.peerEvent == nil else { return false }
            state.sent.append(message)
            return true
        }
        guard open else { throw WebSocketError.notConnected }
        outbound.append(message)
    }

    /// Returns at once, or waits for the close when pings are ignored.
    public func ping() async throws {
        let (answer, count, open) = state.withLock { state in
            state.pingCount += 1
            return (state.pingAnswer, state.pingCount, state.closedByClient == nil && state.peerEvent == nil)
        }
        guard open else { throw WebSocketError.notConnected }
        pings.append(count)
        if answer == .ignore {
            try await unanswered.next()
            throw WebSocketError.notConnected
        }
    }

    /// Records the close; the client's receive then gets the echo.
    public func close(_ code: WebSocketCloseCode, reason: String) async {
        let first = state.withLock { state in
            guard state.closedByClient == nil else { return false }
            state.closedByClient = (code, reason)
            return true
        }
        guard first else { return }
        closes.append(code)
        inbound.append(.closed(code, reason: reason))
        endPings()
    }

    private func endPings() {
        unanswered.fail(WebSocketError.notConnected)
    }
}

/// A queue a test reads with `await`: elements wait for a reader, readers
/// wait for an element, and a failure ends it after what was queued.
final class TestQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var failure: (any Error)?
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Element, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedValue(State())

    func append(_ element: Element) {
        let waiter = state.withLock { state in
            if state.failure != nil { return CheckedContinuation<Element, any Error>?.none }
            guard !state.waiters.isEmpty else {
                state.elements.append(element)
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume(returning: element)
    }

    func fail(_ error: any Error) {
        let waiters = state.withLock { state in
            if state.failure == nil { state.failure = error }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }

    func next() async throws -> Element {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Element, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if !state.elements.isEmpty { return .success(state.elements.removeFirst()) }
                    if let failure = state.failure { return .failure(failure) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
