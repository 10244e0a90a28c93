import AsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

extension AsyncHTTPClientTransport: WebSocketTransport {
    /// Opens a WebSocket connection with SwiftNIO's WebSocket codec, on the
    /// client's event loops but outside its connection pool (an upgraded
    /// connection is never handed back to it).
    ///
    /// `https` connects with TLS: the TLS configuration of a transport that
    /// made its client, or the system's defaults for a client passed in,
    /// with the host as the server name. The connect timeout and the read
    /// timeout (how long the server may take to answer the handshake) are
    /// the configuration's too; for a client passed in, whose configuration
    /// cannot be read back, 10 seconds to connect and 30 to answer.
    ///
    /// A host with several addresses is tried as AsyncHTTPClient does
    /// (Happy Eyeballs, IPv6 first); the handshake runs on the connection
    /// that wins.
    ///
    /// A refusal (any status but 101; a 101 with a wrong
    /// `Sec-WebSocket-Accept`, an extension, or a subprotocol the request
    /// did not offer) comes back as ``WebSocketHandshake/refused(_:body:)``
    /// with up to 64 KiB of its body. No connection throws
    /// ``TransportFailure``; task cancellation, `CancellationError`.
    public func openWebSocket(_ request: HTTPRequest, limits: WebSocketLimits) async throws -> WebSocketHandshake {
        try await openWebSocket(request, limits: limits, resolver: nil)
    }

    /// How long the server may take to answer the handshake when the
    /// transport was given its client: without a limit, a server that
    /// accepts the connection and never answers would hold the caller for ever.
    static let defaultHandshakeTimeout: TimeAmount = .seconds(30)

    /// ``openWebSocket(_:limits:)`` with the name lookups `resolver` makes
    /// (the system's when nil), for tests to give a host several addresses.
    func openWebSocket(
        _ request: HTTPRequest,
        limits: WebSocketLimits,
        resolver: (any Resolver & Sendable)?
    ) async throws -> WebSocketHandshake {
        let target = try WebSocketTarget(request)
        let readTimeout: TimeAmount? =
            if let ownConfiguration { ownConfiguration.timeout.read } else { Self.defaultHandshakeTimeout }
        let mapping = TransportErrorMapping(server: target.authority, readTimeout: readTimeout)
        try Task.checkCancellation()
        var tls: NIOSSLContext?
        if target.isSecure {
            do {
                tls = try NIOSSLContext(configuration: ownConfiguration?.tlsConfiguration ?? .makeClientConfiguration())
            } catch {
                throw mapping.map(error)
            }
        }

        let (eventLoop, bootstrap) = Self.bootstrap(on: client.eventLoopGroup)
        let outcome = eventLoop.makePromise(of: WebSocketHandshakeOutcome.self)
        let attempt = HandshakeAttempt()
        let head = Self.handshakeHead(request, target: target)
        let offeredProtocols = Self.offeredProtocols(request)
        let serverName = target.isIPAddress ? nil : target.host
        let connect =
            bootstrap
            .connectTimeout(ownConfiguration?.timeout.connect ?? .seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .resolver(resolver)
            .channelInitializer { [tls] channel in
                // One initializer runs per address tried, each channel with
                // its own outcome: a losing attempt fails its own (its upgrade
                // handler goes when its channel closes), which nothing reads.
                let channelOutcome = channel.eventLoop.makePromise(of: WebSocketHandshakeOutcome.self)
                // Completed whatever happens to the channel, as NIO wants of
                // every promise; held only until then, as once completed it
                // holds the connection, which must not outlive its last user.
                let pending = NIOLoopBoundBox(Optional(channelOutcome), eventLoop: channel.eventLoop)
                channelOutcome.futureResult.whenComplete { _ in pending.value = nil }
                channel.closeFuture.whenComplete { _ in pending.value?.fail(ChannelError.ioOnClosedChannel) }
                if attempt.register(channel, outcome: channelOutcome) {
                    return channel.eventLoop.makeFailedFuture(CancellationError())
                }
                return channel.eventLoop.makeCompletedFuture {
                    try Self.configurePipeline(
                        of: channel,
                        tls: tls.map { ($0, serverName) },
                        head: head,
                        offeredProtocols: offeredProtocols,
                        limits: limits,
                        outcome: channelOutcome
                    )
                }
            }
            .connect(host: target.host, port: target.port)
        connect.whenComplete { result in
            switch result {
            case let .success(channel):
                guard let winner = attempt.won(channel) else {
                    return outcome.fail(ChannelError.inappropriateOperationForState)
                }
                winner.futureResult.cascade(to: outcome)
            case let .failure(error):
                outcome.fail(error)
            }
        }
        if let readTimeout {
            // As for a request: the wait starts once the handshake is on its way.
            connect.whenSuccess { channel in
                let timer = channel.eventLoop.scheduleTask(in: readTimeout) {
                    outcome.fail(AsyncHTTPClient.HTTPClientError.readTimeout)
                }
                outcome.futureResult.whenComplete { _ in timer.cancel() }
            }
        }

        let result: WebSocketHandshakeOutcome
        do {
            result = try await withTaskCancellationHandler {
                try await outcome.futureResult.get()
            } onCancel: {
                outcome.fail(CancellationError())
                attempt.cancel()
            }
        } catch {
            attempt.cancel()
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw mapping.map(error)
        }
        switch result {
        case let .upgraded(head, connection):
            guard !Task.isCancelled else {
                attempt.cancel()
                throw CancellationError()
            }
            return .upgraded(try Self.response(head, server: target.authority), connection)
        case let .refused(head, body):
            attempt.cancel()
            let response = try Self.response(head, server: target.authority)
            return .refused(response, body: HTTPBody(body.withUnsafeReadableBytes { Data($0) }))
        }
    }

    /// A bootstrap on one of `group`'s loops, or on NIO's shared loops when
    /// those cannot take BSD sockets (NIOTransportServices' loops, which
    /// AsyncHTTPClient may choose on Apple platforms).
    private static func bootstrap(on group: any EventLoopGroup) -> (any EventLoop, ClientBootstrap) {
        let eventLoop = group.next()
        if let bootstrap = ClientBootstrap(validatingGroup: eventLoop) { return (eventLoop, bootstrap) }
        let shared = MultiThreadedEventLoopGroup.singleton.next()
        return (shared, ClientBootstrap(group: shared))
    }

    /// TLS (when asked for), HTTP/1.1, the handshake watcher and NIO's
    /// upgrade handler with its WebSocket upgrader, which puts a
    /// ``WebSocketClientHandler`` in place of the HTTP handlers on success.
    private static func configurePipeline(
        of channel: any Channel,
        tls: (context: NIOSSLContext, serverName: String?)?,
        head: HTTPRequestHead,
        offeredProtocols: Set<String>,
        limits: WebSocketLimits,
        outcome: EventLoopPromise<WebSocketHandshakeOutcome>
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        if let tls {
            try pipeline.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverName))
        }
        let encoder = HTTPRequestEncoder()
        // Frames that came in the same read as the 101 go on to the WebSocket decoder.
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let watcher = WebSocketHandshakeHandler(offeredProtocols: offeredProtocols, outcome: outcome)
        let upgrader = NIOTypedWebSocketClientUpgrader<Void>(
            // The decoder refuses a longer frame before reading it; NIO takes up to UInt32.max.
            maxFrameSize: min(max(0, limits.maximumFrameSize), Int(clamping: UInt32.max)),
            // The handler answers broken frames itself, with the close code each calls for.
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    let handler = WebSocketClientHandler(limits: limits, inbox: WebSocketInbox())
                    try channel.pipeline.syncOperations.addHandler(handler)
                    outcome.succeed(.upgraded(response, NIOWebSocketConnection(channel: channel, handler: handler)))
                }
            }
        )
        let upgradeHandler = NIOTypedHTTPClientUpgradeHandler(
            // The watcher first: it takes only HTTP parts, and the decoder
            // hands on the bytes after the 101 (frames) as it leaves.
            httpHandlers: [watcher, encoder, decoder],
            upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                upgradeRequestHead: head,
                upgraders: [upgrader],
                // The watcher collects a refusal's body and completes the outcome.
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededVoidFuture() }
            )
        )
        try pipeline.addHandlers(encoder, decoder, watcher, upgradeHandler)
        let boundWatcher = NIOLoopBound(watcher, eventLoop: channel.eventLoop)
        upgradeHandler.upgradeResultFuture.whenFailure { error in
            boundWatcher.value.upgradeFailed(error, channel: channel)
        }
    }

    /// Fields the handshake sets itself (NIO's upgrader adds `Upgrade`,
    /// `Connection` and the key and version), or that would not fit a
    /// bodiless GET; extensions are dropped because none is supported, so a
    /// server must not answer with one.
    private static let handshakeFieldNames: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

    private static func handshakeHead(_ request: HTTPRequest, target: WebSocketTarget) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 1)
        headers.add(name: "Host", value: target.hostField)
        for field in request.headerFields where !handshakeFieldNames.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        return HTTPRequestHead(
            version: .http1_1,
            method: HTTPMethod(rawValue: request.method.rawValue),
            uri: target.path,
            headers: headers
        )
    }

    /// The subprotocols the request offers, one of which a 101 may name.
    private static func offeredProtocols(_ request: HTTPRequest) -> Set<String> {
        var offered = Set<String>()
        for value in request.headerFields[values: .secWebSocketProtocol] {
            for name in value.split(separator: ",") {
                let name = name.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { offered.insert(name) }
            }
        }
        return offered
    }

    private static func response(_ head: HTTPResponseHead, server: String) throws -> HTTPResponse {
        // NIO's parser reads three digits; HTTPResponse.Status traps on anything else.
        guard head.status.code <= 999 else {
            throw TransportFailure(
                .malformedResponse(detail: "status code \(head.status.code)"),
                server: server,
                underlying: URLError(.badServerResponse)
            )
        }
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for header in head.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        return HTTPResponse(
            sharingStatus: Int(head.status.code),
            reasonPhrase: head.status.reasonPhrase,
            headerFields: fields
        )
    }
}

/// Where a WebSocket request goes: its scheme, host and port taken apart.
struct WebSocketTarget: Sendable {
    /// `https` or `wss`.
    var isSecure: Bool
    /// The host to connect to, without an IPv6 literal's brackets.
    var host: String
    var port: Int
    /// `host:port` as the request wrote it, for errors.
    var authority: String
    /// The `Host` field: the authority without user information.
    var hostField: String
    var path: String
    /// Whether the host is an IP address, which TLS's server name must not be.
    var isIPAddress: Bool

    init(_ request: HTTPRequest) throws {
        guard let scheme = request.scheme?.lowercased(), let authority = request.authority, !authority.isEmpty
        else {
            throw HTTPClientError.invalidRequest(reason: "\(request.method) \(request.path ?? "") has no absolute URL")
        }
        switch scheme {
        case "https", "wss": isSecure = true
        case "http", "ws": isSecure = false
        default: throw HTTPClientError.invalidRequest(reason: "a WebSocket cannot use the scheme \(scheme)")
        }
        self.authority = authority
        path = request.path.flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        var hostAndPort = Substring(authority)
        if let at = hostAndPort.lastIndex(of: "@") { hostAndPort = hostAndPort[hostAndPort.index(after: at)...] }
        hostField = String(hostAndPort)
        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                throw HTTPClientError.invalidRequest(reason: "the host \(authority) is not a valid IPv6 literal")
            }
            host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            let rest = hostAndPort[hostAndPort.index(after: close)...]
            if rest.first == ":" {
                portText = rest.dropFirst()
            } else if !rest.isEmpty {
                throw HTTPClientError.invalidRequest(reason: "the host \(authority) is not valid")
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = String(hostAndPort[..<colon])
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        } else {
            host = String(hostAndPort)
        }
        if let portText {
            // Digits only: `UInt16(_:)` alone would take "+5".
            guard !portText.isEmpty, portText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let port = UInt16(portText)
            else {
                throw HTTPClientError.invalidRequest(reason: "the port in \(authority) is not valid")
            }
            self.port = Int(port)
        } else {
            port = isSecure ? 443 : 80
        }
        guard !host.isEmpty else { throw HTTPClientError.invalidRequest(reason: "\(authority) has no host") }
        isIPAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

/// The channels of a handshake under way: every address tried, each with
/// its own outcome, until one connects; then the one that did. A task
/// cancelled during the handshake closes them.
private final class HandshakeAttempt: Sendable {
    private struct State: Sendable {
        /// The channels tried and not yet known to have lost, with their outcomes.
        var tried: [ObjectIdentifier: (channel: any Channel, outcome: EventLoopPromise<WebSocketHandshakeOutcome>)] =
            [:]
        var winner: (any Channel)?
        var isCancelled = false
    }

    private let state = LockedValue(State())

    /// Records a channel about to connect; true when the attempt was cancelled already.
    func register(_ channel: any Channel, outcome: EventLoopPromise<WebSocketHandshakeOutcome>) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return true }
            state.tried[ObjectIdentifier(channel)] = (channel, outcome)
            return false
        }
    }

    /// Records `channel` as the one that connected, forgets the others
    /// (the connect closes them), and returns its outcome.
    func won(_ channel: any Channel) -> EventLoopPromise<WebSocketHandshakeOutcome>? {
        state.withLock { state in
            let outcome = state.tried[ObjectIdentifier(channel)]?.outcome
            state.tried = [:]
            state.winner = channel
            return outcome
        }
    }

    /// Marks the attempt cancelled and closes its channels: the winner, or
    /// every one tried when none has won yet.
    func cancel() {
        let channels = state.withLock { state in
            state.isCancelled = true
            let channels = state.winner.map { [$0] } ?? state.tried.values.map(\.channel)
            state.tried = [:]
            return channels
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
