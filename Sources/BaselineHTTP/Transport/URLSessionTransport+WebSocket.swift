import BaselineConcurrency
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WebSockets on `URLSessionWebSocketTask`.
///
/// On Apple platforms this is the system's WebSocket stack. On Linux,
/// FoundationNetworking runs WebSockets through libcurl, and the libcurl of
/// common distributions is built without WebSocket support: the handshake
/// then throws ``WebSocketError/unsupportedTransport(_:)``, and the
/// AsyncHTTPClient transport package is the one to use.
extension URLSessionTransport: WebSocketTransport {
    /// Opens a `URLSessionWebSocketTask` for `request` and waits until it is
    /// open: a ping answered means the upgrade succeeded.
    public func openWebSocket(_ request: HTTPRequest, limits: WebSocketLimits) async throws -> WebSocketHandshake {
        var request = request
        // URLSession writes the handshake's own fields itself.
        for name in ["Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"] {
            request.headerFields[HTTPField.Name(name)!] = nil
        }
        request.scheme = request.scheme == "https" ? "wss" : "ws"
        guard let urlRequest = Self.urlRequest(for: request) else {
            throw HTTPClientError.invalidRequest(reason: "\(request.method) \(request.path ?? "") has no absolute URL")
        }
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = limits.maximumMessageSize
        task.resume()
        let connection = URLSessionWebSocketConnection(task: task, limits: limits)
        do {
            try await connection.ping()
        } catch is CancellationError {
            task.cancel()
            throw CancellationError()
        } catch {
            task.cancel()
            if let http = task.response as? HTTPURLResponse, http.statusCode != 101,
                let head = Self.responseHead(of: http)
            {
                return .refused(head, body: HTTPBody(Data()))
            }
            if let failure = (task.error ?? error) as? URLError, failure.code == .unsupportedURL {
                throw WebSocketError.unsupportedTransport(
                    "URLSessionTransport on this platform (\(failure.localizedDescription))"
                )
            }
            throw error
        }
        let head =
            (task.response as? HTTPURLResponse).flatMap(Self.responseHead(of:))
            ?? HTTPResponse(status: .switchingProtocols)
        return .upgraded(head, connection)
    }
}

/// A `URLSessionWebSocketTask` as a ``WebSocketConnection``.
///
/// URLSession assembles messages, answers pings and enforces the message
/// limit itself. A receive cannot be withdrawn: one whose task is cancelled
/// returns `CancellationError` at once and leaves URLSession's receive
/// pending, so the message it gets is lost, which is why ``WebSocket``
/// closes the socket when its reader is cancelled.
final class URLSessionWebSocketConnection: WebSocketConnection {
    let task: URLSessionWebSocketTask
    let limits: WebSocketLimits
    private let closing = LockedValue(false)

    init(task: URLSessionWebSocketTask, limits: WebSocketLimits) {
        self.task = task
        self.limits = limits
    }

    deinit {
        task.cancel()
    }

    func receive() async throws -> WebSocketEvent {
        if let closed = closeEvent() { return closed }
        let task = self.task
        let result = await Self.callback {
            (done: @escaping @Sendable (Result<URLSessionWebSocketTask.Message, any Error>) -> Void) in
            task.receive { done($0.mapError { $0 }) }
        }
        switch result {
        case let .success(.string(text)):
            return .message(.text(text))
        case let .success(.data(data)):
            return .message(.binary(data))
        case .success:
            return .message(.binary(Data()))
        case .failure(let error as CancellationError):
            throw error
        case let .failure(error):
            if let closed = closeEvent() { return closed }
            if (error as NSError).domain == NSPOSIXErrorDomain, (error as NSError).code == Int(EMSGSIZE) {
                throw WebSocketError.messageTooLarge(limit: limits.maximumMessageSize)
            }
            throw WebSocketError.connectionLost(error.localizedDescription)
        }
    }

    /// The peer's close, once URLSession has one to report.
    private func closeEvent() -> WebSocketEvent? {
        let code = task.closeCode
        guard code != .invalid else { return nil }
        let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return .closed(
            code == .noStatusReceived ? nil : WebSocketCloseCode(rawValue: UInt16(clamping: code.rawValue)),
            reason: reason
        )
    }

    func send(_ message: WebSocketMessage) async throws {
        guard !closing.current else { throw WebSocketError.notConnected }
        let outgoing: URLSessionWebSocketTask.Message =
            switch message {
            case let .text(text): .string(text)
            case let .binary(data): .data(data)
            }
        let task = self.task
        try await Self.callback { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
            task.send(outgoing) { error in done(error.map { .failure($0) } ?? .success(())) }
        }
        .mapError { $0 is CancellationError ? $0 : WebSocketError.connectionLost($0.localizedDescription) }
        .get()
    }

    func ping() async throws {
        let task = self.task
        try await Self.callback { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
            task.sendPing { error in done(error.map { .failure($0) } ?? .success(())) }
        }
        .mapError { $0 is CancellationError ? $0 : WebSocketError.notConnected }
        .get()
    }

    /// The result of a URLSession call that reports through a callback, or
    /// `CancellationError` as soon as the task is cancelled: URLSession
    /// cannot withdraw the call, so its late result is dropped.
    private static func callback<Value: Sendable>(
        _ start: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
    ) async -> Result<Value, any Error> {
        let once = LockedValue<CheckedContinuation<Result<Value, any Error>, Never>?>(nil)
        let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
            once.withLock { $0.take() }?.resume(returning: result)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.withLock { $0 = continuation }
                if Task.isCancelled {
                    finish(.failure(CancellationError()))
                } else {
                    start(finish)
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        let first = closing.withLock { closing in
            defer { closing = true }
            return !closing
        }
        guard first else { return }
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
        // A close frame's reason is at most 123 bytes: cut at a character.
        var bytes = Data()
        for character in reason where bytes.count + character.utf8.count <= 123 {
            bytes.append(contentsOf: character.utf8)
        }
        task.cancel(with: closeCode, reason: bytes)
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
