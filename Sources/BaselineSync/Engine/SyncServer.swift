public import BaselineHTTP
import Foundation
import HTTPTypes

/// The server a ``SyncEngine`` syncs with: push, pull, and (optionally) a
/// channel that says when there is something new to pull.
///
/// ``HTTPSyncServer`` speaks the protocol over HTTP; tests pass a double.
public protocol SyncServer: Sendable {
    /// Sends changes; all are applied or none (the server then throws
    /// ``SyncServerError/refused(status:_:)``).
    func push(_ push: SyncPush) async throws -> SyncPushResult

    /// The rows changed after `cursor`, at most `limit`.
    func pull(after cursor: Int64, limit: Int) async throws -> SyncPage

    /// The server's change notifications: its cursor, each time the member's
    /// data changes. The sequence ends, or throws, when the channel goes
    /// down; nil when the server has no channel (the engine polls).
    func changes() async throws -> AsyncThrowingStream<Int64, any Error>?
}

/// What a server said no to.
public enum SyncServerError: Error, Sendable, Equatable {
    /// The server refused the request (a 4xx): retrying it unchanged would
    /// fail again. For a push, ``SyncRefusal/Detail/changes`` names the
    /// changes at fault.
    case refused(status: Int, SyncRefusal)
    /// The server answered something that does not follow the protocol.
    case protocolViolation(String)
}

/// The sync protocol over HTTP: `POST {path}/push`, `GET {path}/pull`, and
/// the WebSocket `GET {path}/live`, through an `HTTPClient` (so its
/// authentication, retry and logging middleware apply).
///
/// ```swift
/// let server = HTTPSyncServer(client: client)      // paths under /sync
/// ```
public struct HTTPSyncServer: SyncServer {
    /// The client requests go through.
    public let client: HTTPClient
    /// The path the protocol's endpoints are under.
    public let path: String
    /// Whether to open the WebSocket channel; without it the engine polls.
    public let usesLiveChannel: Bool

    /// A server at `path` (relative to the client's base URL).
    public init(client: HTTPClient, path: String = "/sync", usesLiveChannel: Bool = true) {
        self.client = client
        self.path = path.hasSuffix("/") ? String(path.dropLast()) : path
        self.usesLiveChannel = usesLiveChannel
    }

    /// `POST {path}/push`.
    public func push(_ push: SyncPush) async throws -> SyncPushResult {
        try await refusals {
            try await client.send(Request<SyncPushResult>.post(path + "/push", body: .json(push))).value
        }
    }

    /// `GET {path}/pull?after=…&limit=…`.
    public func pull(after cursor: Int64, limit: Int) async throws -> SyncPage {
        try await refusals {
            let request = Request<SyncPage>.get(
                path + "/pull",
                query: [
                    URLQueryItem(name: "after", value: String(cursor)),
                    URLQueryItem(name: "limit", value: String(limit)),
                ]
            )
            return try await client.send(request).value
        }
    }

    /// The WebSocket `{path}/live`, whose messages are `{"cursor": n}`.
    public func changes() async throws -> AsyncThrowingStream<Int64, any Error>? {
        guard usesLiveChannel else { return nil }
        // The engine reconnects (with its own backoff, polling meanwhile).
        let socket = try await refusals {
            try await client.webSocket(.get(path + "/live"), configuration: .init(reconnection: .never))
        }
        let messages = socket.messages(of: CursorMessage.self)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await message in messages { continuation.yield(message.cursor) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                await socket.close()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private struct CursorMessage: Decodable, Sendable {
        var cursor: Int64
    }

    /// Turns a 4xx into ``SyncServerError/refused(status:_:)``.
    private func refusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HTTPClientError {
            throw Self.refusal(error) ?? error
        } catch let error as WebSocketError {
            if case let .handshakeRefused(response, body) = error,
                let refusal = Self.refusal(status: response.status.code, body: body)
            {
                throw refusal
            }
            throw error
        }
    }

    static func refusal(_ error: HTTPClientError) -> SyncServerError? {
        guard case let .unacceptableStatus(response, body) = error else { return nil }
        return refusal(status: response.status.code, body: body)
    }

    static func refusal(status: Int, body: Data) -> SyncServerError? {
        guard (400..<500).contains(status), status != 408, status != 429 else { return nil }
        let refusal =
            (try? JSONDecoder().decode(SyncRefusal.self, from: body))
            ?? SyncRefusal(
                .init(code: SyncRefusalCode(rawValue: "http_\(status)"), message: "The server answered \(status).")
            )
        return .refused(status: status, refusal)
    }
}
