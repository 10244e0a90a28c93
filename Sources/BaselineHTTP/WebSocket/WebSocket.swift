import BaselineConcurrency
import Foundation
import HTTPTypes

/// An open WebSocket: messages to read as they come, messages to send, and,
/// when asked for, a connection kept alive and made again after a drop.
///
/// Open one with ``HTTPClient/webSocket(_:configuration:onConnect:)``; the
/// handshake goes through the client's middleware, so bearer authentication
/// adds its token and refreshes it on a 401, as for any request:
///
/// ```swift
/// let socket = try await client.webSocket(.get("/favourites/live"))
/// try await socket.send(.json(Favourite(photo: id, favourite: true)))
/// for try await count in socket.messages(of: FavouriteCount.self) {
///     counts[count.photo] = count.count
/// }
/// ```
///
/// - **Reading.** ``messages`` (or ``receive()``) gives whole messages, one
///   reader at a time. It ends (`nil`) when the socket is closed by
///   ``close(_:reason:)`` or by the server with 1000 (normal closure), and
///   throws ``WebSocketError`` otherwise: another close code, a lost
///   connection, a server that stopped answering pings, a message over
///   ``WebSocketLimits``.
/// - **Keep-alive.** Every ``Configuration/keepAlive`` interval the socket
///   pings the server; no pong within the timeout and it closes the
///   connection as dead (``WebSocketError/peerNotResponding``). A proxy or a
///   NAT that drops idle connections silently is found this way, in bounded
///   time.
/// - **Reconnection**, opt in (``Configuration/reconnection``): after a
///   drop, a dead peer or a close other than 1000, the socket connects again
///   after an exponential backoff on the client's clock, runs `onConnect`
///   (to subscribe again), and the same ``messages`` loop goes on. Sends in
///   between throw ``WebSocketError/notConnected``.
/// - **Cancellation** of the task that reads closes the socket (1001, going
///   away) and throws `CancellationError`.
///
/// Releasing the last reference closes the connection too, but say
/// ``close(_:reason:)`` when done: the server then knows why.
public final class WebSocket: Sendable {
    /// How a socket limits, keeps alive and reconnects its connections.
    public struct Configuration: Sendable {
        /// The largest message and frame accepted.
        public var limits: WebSocketLimits
        /// How often to ping and how long to wait for the pong; `nil` never
        /// pings, leaving a silent dead connection to the operating system
        /// (minutes to hours).
        public var keepAlive: KeepAlive?
        /// When to connect again after a drop; ``Reconnection/never`` by default.
        public var reconnection: Reconnection

        /// A configuration; by default 1 MiB messages, a ping every 30 s
        /// answered within 10 s, and no reconnection.
        public init(
            limits: WebSocketLimits = WebSocketLimits(),
            keepAlive: KeepAlive? = KeepAlive(),
            reconnection: Reconnection = .never
        ) {
            self.limits = limits
            self.keepAlive = keepAlive
            self.reconnection = reconnection
        }
    }

    /// Pings that find a dead connection.
    public struct KeepAlive: Sendable, Equatable {
        /// The wait between the end of one ping and the next.
        public var interval: Duration
        /// How long a pong may take before the peer counts as dead.
        public var timeout: Duration

        /// A keep-alive; the defaults ping every 30 s and wait 10 s.
        public init(interval: Duration = .seconds(30), timeout: Duration = .seconds(10)) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    /// When a socket connects again after it lost its connection.
    ///
    /// The wait before attempt *n* is `initialDelay × multiplier^(n−1)`, at
    /// most ``maximumDelay``, less a random part of up to ``jitter`` of it so
    /// that clients dropped together by a server restart do not all come
    /// back at once. A connection that opens resets the count.
    public struct Reconnection: Sendable, Equatable {
        /// The wait before the first attempt.
        public var initialDelay: Duration
        /// The longest wait between attempts.
        public var maximumDelay: Duration
        /// How much each wait grows over the one before.
        public var multiplier: Double
        /// The largest fraction taken off a wait at random, 0 to 1.
        public var jitter: Double
        /// How many attempts in a row may fail before the socket gives up
        /// and throws the last error; `nil` tries forever.
        public var maximumAttempts: Int?

        /// A policy; the defaults wait 1 s, then 2, 4, … up to 30 s, and
        /// never give up.
        public init(
            initialDelay: Duration = .seconds(1),
            maximumDelay: Duration = .seconds(30),
            multiplier: Double = 2,
            jitter: Double = 0.2,
            maximumAttempts: Int? = nil
        ) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.multiplier = multiplier
            self.jitter = jitter
            self.maximumAttempts = maximumAttempts
        }

        /// Never reconnects: the first drop ends the socket.
        public static var never: Reconnection { Reconnection(maximumAttempts: 0) }

        /// The wait before attempt `attempt` (1 for the first), before jitter.
        package func delay(beforeAttempt attempt: Int) -> Duration {
            let initial = initialDelay.seconds
            let maximum = maximumDelay.seconds
            // Bounded before the power, so a long outage cannot overflow.
            let exponent = Double(min(max(attempt - 1, 0), 64))
            let seconds = min(maximum, initial * pow(max(multiplier, 1), exponent))
            return .seconds(seconds.isFinite ? max(seconds, 0) : maximum)
        }

        /// ``delay(beforeAttempt:)`` less its random part.
        func jitteredDelay(beforeAttempt attempt: Int) -> Duration {
            let delay = delay(beforeAttempt: attempt)
            let fraction = min(max(jitter, 0), 1)
            guard fraction > 0 else { return delay }
            return .seconds(delay.seconds * (1 - Double.random(in: 0...fraction)))
        }
    }

    /// Opens one connection: the handshake through the client's middleware.
    typealias Connect = @Sendable () async throws -> (HTTPResponse, any WebSocketConnection)
    /// What runs after each connection opens.
    typealias OnConnect = @Sendable (WebSocket) async throws -> Void

    private struct State: Sendable {
        /// The open connection; `nil` while reconnecting and once closed.
        var connection: (any WebSocketConnection)?
        /// Counts connections, so a keep-alive can tell whether the one it
        /// watched is still current.
        var generation = 0
        /// The handshake's response of the latest connection.
        var response: HTTPResponse
        /// Pings the current connection.
        var keepAlive: Task<Void, Never>?
        /// The connection the keep-alive found dead.
        var deadGeneration: Int?
        /// The wait and connect after a drop, so ``close(_:reason:)`` can stop it.
        var reconnecting: Task<Void, any Error>?
        /// Set once: by ``close(_:reason:)``, or when the socket ended.
        var isClosed = false
    }

    private let state: LockedValue<State>
    private let connect: Connect
    private let onConnect: OnConnect?
    private let clock: any Clock<Duration>

    /// How the socket was configured.
    public let configuration: Configuration

    init(
        response: HTTPResponse,
        connection: any WebSocketConnection,
        configuration: Configuration,
        clock: any Clock<Duration>,
        connect: @escaping Connect,
        onConnect: OnConnect?
    ) {
        self.state = LockedValue(State(connection: connection, generation: 1, response: response))
        self.configuration = configuration
        self.clock = clock
        self.connect = connect
        self.onConnect = onConnect
    }

    deinit {
        let (connection, keepAlive, reconnecting) = state.withLock { state in
            (state.connection, state.keepAlive, state.reconnecting)
        }
        keepAlive?.cancel()
        reconnecting?.cancel()
        if let connection {
            Task { await connection.close(.goingAway, reason: "") }
        }
    }

    /// The response to the latest handshake: its `Sec-WebSocket-Protocol`
    /// says which subprotocol the server chose.
    public var response: HTTPResponse {
        state.current.response
    }

    /// Whether a connection is open now: `false` while reconnecting and once
    /// closed.
    public var isConnected: Bool {
        state.withLock { !$0.isClosed && $0.connection != nil }
    }

    /// Starts the keep-alive and runs `onConnect` for the connection just
    /// opened. Called once the socket is in place, so `onConnect` can send.
    func didConnect() async throws {
        startKeepAlive()
        if let onConnect { try await onConnect(self) }
    }

    // MARK: Sending

    /// Sends `message`; returns when the transport has taken it: queued to
    /// go out in order, ahead of a later ``close(_:reason:)``, not
    /// necessarily written yet. It waits while the peer does not read.
    ///
    /// Throws ``WebSocketError/notConnected`` when the socket is closed or
    /// reconnecting: a message is never queued for a later connection,
    /// since by then it may no longer be meant.
    public func send(_ message: WebSocketMessage) async throws {
        guard let connection = state.withLock({ $0.isClosed ? nil : $0.connection }) else {
            throw WebSocketError.notConnected
        }
        try await connection.send(message)
    }

    /// Sends `value` as a JSON text message.
    public func send(json value: some Encodable, encoder: JSONEncoder = JSONEncoder()) async throws {
        try await send(.json(value, encoder: encoder))
    }

    // MARK: Closing

    /// Closes the socket with `code` and `reason`, ending ``messages``
    /// without error. Stops a reconnection in progress. Calling it again
    /// does nothing.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let (connection, keepAlive, reconnecting) = state.withLock { state in
            if state.isClosed {
                return ((any WebSocketConnection)?.none, Task<Void, Never>?.none, Task<Void, any Error>?.none)
            }
            state.isClosed = true
            defer {
                state.connection = nil
                state.keepAlive = nil
                state.reconnecting = nil
            }
            return (state.connection, state.keepAlive, state.reconnecting)
        }
        keepAlive?.cancel()
        reconnecting?.cancel()
        await connection?.close(code.canBeSent ? code : .normalClosure, reason: reason)
    }

    // MARK: Receiving

    /// The messages as they arrive: see the type's description for when the
    /// sequence ends and what it throws.
    public var messages: Messages { Messages(socket: self) }

    /// The messages decoded from JSON as `Value`; a message that does not
    /// decode throws ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``
    /// and ends the loop (the socket stays open).
    public func messages<Value: Decodable>(
        of type: Value.Type,
        decoder: JSONDecoder = JSONDecoder()
    )
        -> DecodedMessages<Value>
    {
        DecodedMessages(socket: self, decoder: decoder)
    }

    /// The next message, or `nil` once the socket is closed. Reconnects
    /// first when the configuration says so; see the type's description.
    public func receive() async throws -> WebSocketMessage? {
        while true {
            guard
                let (connection, generation) = state.withLock({ state in
                    state.isClosed ? nil : state.connection.map { ($0, state.generation) }
                })
            else {
                if state.current.isClosed { return nil }
                // Another reader is reconnecting; one reader at a time.
                throw WebSocketError.notConnected
            }
            let failure: WebSocketError
            do {
                switch try await connection.receive() {
                case let .message(message):
                    return message
                case .closed(.normalClosure?, _):
                    await finish()
                    return nil
                case let .closed(code, reason):
                    failure = .closed(code, reason: reason)
                }
            } catch {
                if error is CancellationError || Task.isCancelled {
                    await close(.goingAway)
                    throw CancellationError()
                }
                if state.current.isClosed { return nil }
                failure = error as? WebSocketError ?? .connectionLost(String(describing: error))
            }
            if state.current.isClosed { return nil }
            // A connection the keep-alive closed ends with its own close.
            let dead = state.current.deadGeneration == generation
            try await reconnect(after: dead ? .peerNotResponding : failure, replacing: generation)
        }
    }

    /// Marks the socket as ended by the peer and lets go of its connection.
    private func finish() async {
        let (connection, keepAlive) = state.withLock { state in
            state.isClosed = true
            defer {
                state.connection = nil
                state.keepAlive = nil
            }
            return (state.connection, state.keepAlive)
        }
        keepAlive?.cancel()
        await connection?.close(.normalClosure, reason: "")
    }

    /// Whether a drop for `failure` is worth reconnecting after: not bad
    /// input, which the next connection would meet again.
    private static func isReconnectable(_ failure: WebSocketError) -> Bool {
        switch failure {
        case .closed, .connectionLost, .peerNotResponding: true
        case .messageTooLarge, .invalidUTF8, .protocolViolation, .handshakeRefused, .unsupportedTransport,
            .notConnected:
            false
        }
    }

    /// Whether a failed attempt to connect is worth another: no connection
    /// or a server error, not a refusal the next attempt would get too.
    private static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case let WebSocketError.handshakeRefused(head, _):
            head.status.kind == .serverError || head.status == .tooManyRequests || head.status == .requestTimeout
        case is WebSocketError, HTTPClientError.authenticationFailed, HTTPClientError.invalidRequest:
            false
        default:
            true
        }
    }

    /// Lets go of connection `generation`, then waits and connects again
    /// until an attempt succeeds, the policy gives up, or the socket closes.
    private func reconnect(after failure: WebSocketError, replacing generation: Int) async throws {
        let policy = configuration.reconnection
        release(generation)
        guard policy.maximumAttempts != 0, Self.isReconnectable(failure) else {
            await close(.goingAway)
            throw failure
        }
        let task = Task { [clock, connect] in
            var attempt = 0
            while true {
                attempt += 1
                try await clock.sleep(for: policy.jitteredDelay(beforeAttempt: attempt))
                do {
                    let (response, connection) = try await connect()
                    guard let generation = self.adopt(connection, response: response) else {
                        await connection.close(.goingAway, reason: "")
                        throw CancellationError()
                    }
                    do {
                        try await self.didConnect()
                    } catch {
                        // onConnect failed, say on a connection that dropped
                        // at once: the attempt failed.
                        self.release(generation)
                        throw error
                    }
                    return
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    guard Self.isRetryable(error) else { throw error }
                    if let maximum = policy.maximumAttempts, attempt >= maximum { throw error }
                }
            }
        }
        let started = state.withLock { state in
            guard !state.isClosed else { return false }
            state.reconnecting = task
            return true
        }
        guard started else {
            task.cancel()
            return
        }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            state.withLock { $0.reconnecting = nil }
        } catch {
            if state.current.isClosed, !Task.isCancelled { return }
            await close(.goingAway)
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Makes `connection` the current one and returns its generation,
    /// unless the socket closed meanwhile.
    private func adopt(_ connection: any WebSocketConnection, response: HTTPResponse) -> Int? {
        state.withLock { state in
            guard !state.isClosed else { return nil }
            state.connection = connection
            state.response = response
            state.generation += 1
            state.deadGeneration = nil
            return state.generation
        }
    }

    /// Lets go of connection `generation`, if it is still the current one:
    /// stops its keep-alive and closes it (it is already closed by the peer
    /// or dead, so this only frees it).
    private func release(_ generation: Int) {
        let dropped = state.withLock { state -> (any WebSocketConnection, Task<Void, Never>?)? in
            guard state.generation == generation, let connection = state.connection else { return nil }
            defer {
                state.connection = nil
                state.keepAlive = nil
            }
            return (connection, state.keepAlive)
        }
        guard let (connection, keepAlive) = dropped else { return }
        keepAlive?.cancel()
        Task { await connection.close(.goingAway, reason: "") }
    }

    // MARK: Keep-alive

    /// Pings the current connection every interval; closes it as dead when
    /// a pong does not come in time, which the reader then sees.
    private func startKeepAlive() {
        guard let keepAlive = configuration.keepAlive else { return }
        state.withLock { state in
            guard !state.isClosed, let connection = state.connection else { return }
            let generation = state.generation
            state.keepAlive?.cancel()
            state.keepAlive = Task { [weak self, clock] in
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(for: keepAlive.interval)
                    } catch {
                        return
                    }
                    let answered = await Self.ping(connection, within: keepAlive.timeout, on: clock)
                    guard let answered else { return }  // cancelled, or the connection is over
                    if !answered {
                        self?.state.withLock { state in
                            if state.generation == generation { state.deadGeneration = generation }
                        }
                        await connection.close(.goingAway, reason: "No pong")
                        return
                    }
                }
            }
        }
    }

    /// Whether `connection` answers a ping within `timeout`; `nil` when the
    /// ping failed (a closed connection) or the task was cancelled.
    private static func ping(
        _ connection: any WebSocketConnection,
        within timeout: Duration,
        on clock: any Clock<Duration>
    ) async -> Bool? {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                do {
                    try await connection.ping()
                    return true
                } catch {
                    return nil
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                    return false
                } catch {
                    return nil
                }
            }
            defer { group.cancelAll() }
            let first = await group.next() ?? nil
            return Task.isCancelled ? nil : first
        }
    }
}

extension WebSocket {
    /// A socket's messages as an `AsyncSequence`: see ``WebSocket/messages``.
    public struct Messages: AsyncSequence, Sendable {
        /// The type of the values the sequence produces.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// Reads from the socket.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// Reads one message at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message, or `nil` once the socket is closed.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.receive()
            }
        }
    }

    /// A socket's messages decoded from JSON: see ``WebSocket/messages(of:decoder:)``.
    public struct DecodedMessages<Value: Decodable>: AsyncSequence, Sendable {
        /// The type of the values the sequence produces.
        public typealias Element = Value
        let socket: WebSocket
        let decoder: JSONDecoder

        /// Reads from the socket.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket, decoder: decoder) }

        /// Reads and decodes one message at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket
            let decoder: JSONDecoder

            /// The next message decoded, or `nil` once the socket is closed.
            public mutating func next() async throws -> Value? {
                try await socket.receive()?.decode(Value.self, decoder: decoder)
            }
        }
    }
}
