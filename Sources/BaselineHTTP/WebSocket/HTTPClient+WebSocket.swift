import BaselineConcurrency
import Foundation
import HTTPTypes

extension HTTPClient {
    /// Opens a WebSocket to `request`'s URL (`http` as `ws`, `https` as
    /// `wss`), through the client's middleware.
    ///
    /// ```swift
    /// let socket = try await client.webSocket(.get("/favourites/live"))
    /// for try await message in socket.messages { … }
    /// ```
    ///
    /// The opening handshake is a request like any other to the middleware:
    /// authentication adds its header field and, on a 401, refreshes the
    /// token and tries once more; retry middleware retries a handshake that
    /// could not connect; logging logs it. It carries `Upgrade: websocket`,
    /// which ``RequestCoalescing`` and ``ResponseCache`` let through
    /// untouched. Redirects are not followed and the response is not
    /// inflated. The request's timeout (or the configuration's) bounds the
    /// handshake.
    ///
    /// - Parameters:
    ///   - request: The handshake: a `GET`, with any header fields the
    ///     server needs (`Sec-WebSocket-Protocol` for a subprotocol).
    ///   - socketConfiguration: Limits, keep-alive and reconnection; keep-alive
    ///     and reconnection waits are measured on the client's
    ///     ``Configuration/clock``.
    ///   - onConnect: Runs after each connection opens, the first and every
    ///     reconnection, before messages are read: send subscriptions here,
    ///     so that a reconnection restores them. If it throws on the first
    ///     connection, the socket is closed and the error thrown.
    /// - Returns: The open socket.
    /// - Throws: ``WebSocketError/handshakeRefused(_:body:)`` when the
    ///   server answers with anything but 101 (after middleware had its say),
    ///   ``WebSocketError/unsupportedTransport(_:)`` when the client's
    ///   transport cannot open WebSockets, the client's usual
    ///   ``HTTPClientError`` for a connection that could not be made or
    ///   timed out, and `CancellationError`.
    public func webSocket(
        _ request: Request<Void>,
        configuration socketConfiguration: WebSocket.Configuration = WebSocket.Configuration(),
        onConnect: (@Sendable (WebSocket) async throws -> Void)? = nil
    ) async throws -> WebSocket {
        guard let transport = transport as? any WebSocketTransport else {
            throw WebSocketError.unsupportedTransport(String(describing: type(of: transport)))
        }
        var (head, _) = try makeHTTPRequest(request)
        // Nothing to inflate, and no body: only what the handshake says.
        head.headerFields[.acceptEncoding] = nil
        head.headerFields[.upgrade] = "websocket"
        let timeout = request.timeout ?? configuration.timeout
        let connect = Self.handshake(
            head,
            transport: transport,
            limits: socketConfiguration.limits,
            middleware: middleware,
            timeout: timeout,
            clock: configuration.clock
        )
        let (response, connection) = try await connect()
        let socket = WebSocket(
            response: response,
            connection: connection,
            configuration: socketConfiguration,
            clock: configuration.clock,
            connect: connect,
            onConnect: onConnect
        )
        do {
            try await socket.didConnect()
        } catch {
            await socket.close(.goingAway)
            throw error
        }
        return socket
    }

    /// A function that opens one connection for `head`: the handshake sent
    /// through `middleware`, whose innermost step asks the transport.
    private static func handshake(
        _ head: HTTPRequest,
        transport: any WebSocketTransport,
        limits: WebSocketLimits,
        middleware: [any HTTPMiddleware],
        timeout: Duration?,
        clock: any Clock<Duration>
    ) -> WebSocket.Connect {
        {
            // Middleware sees only HTTP: the open connection travels beside
            // the chain. A middleware may call the transport more than once
            // (a retry after a 401), so only the latest upgrade counts.
            let opened = LockedValue<(any WebSocketConnection)?>(nil)
            let innermost: HTTPMiddleware.Next = { request, _ in
                switch try await transport.openWebSocket(request, limits: limits) {
                case let .upgraded(response, connection):
                    let earlier = opened.withLock { opened in
                        defer { opened = connection }
                        return opened
                    }
                    if let earlier { await earlier.close(.goingAway, reason: "") }
                    return (response, HTTPBody(Data()))
                case let .refused(response, body):
                    return (response, body)
                }
            }
            let chain = middleware.chained(to: innermost)
            do {
                let (response, body) =
                    if let timeout {
                        try await withTimeout(timeout, on: clock) { try await perform(head, body: nil, on: chain) }
                    } else {
                        try await perform(head, body: nil, on: chain)
                    }
                let connection = opened.withLock { opened in
                    defer { opened = nil }
                    return opened
                }
                guard response.status == .switchingProtocols, let connection else {
                    if let connection { await connection.close(.goingAway, reason: "") }
                    let excerpt = try await errorExcerpt(of: body)
                    throw WebSocketError.handshakeRefused(response, body: excerpt)
                }
                return (response, connection)
            } catch {
                // A timeout or cancellation after the upgrade: let it go.
                if let connection = opened.withLock({ $0 }) { await connection.close(.goingAway, reason: "") }
                if let error = error as? HTTPClientError, case let .transport(underlying) = error,
                    let webSocketError = underlying as? WebSocketError
                {
                    throw webSocketError
                }
                throw error
            }
        }
    }
}
