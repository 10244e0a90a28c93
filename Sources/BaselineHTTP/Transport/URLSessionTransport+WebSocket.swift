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
        let message: URLSessionWebSocketTask.Message
        do {
            // URLSession cannot withdraw a receive: a cancelled one throws at
            // once and its late message is dropped.
            message = try await withCallback { completion in
                task.receive { completion.resume(with: $0.mapError { $0 }) }
                return .notSupported
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            if let closed = closeEvent() { return closed }
            if (error as NSError).domain == NSPOSIXErrorDomain, (error as NSError).code == Int(EMSGSIZE) {
                throw WebSocketError.messageTooLarge(limit: limits.maximumMessageSize)
            }
            throw WebSocketError.connectionLost(error.localizedDescription)
        }
        // Not a switch: the enum is frozen in FoundationNetworking and not
        // on Apple platforms, and each would warn about the other's default.
        if case let .string(text) = message { return .message(.text(text)) }
        if case let .data(data) = message { return .message(.binary(data)) }
        return .message(.binary(Data()))
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
        do {
            try await withCallback { (completion: CallbackCompletion<Void>) in
                task.send(outgoing) { error in completion.resume(with: error.map { .failure($0) } ?? .success(())) }
                return .notSupported
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw WebSocketError.connectionLost(error.localizedDescription)
        }
    }

    func ping() async throws {
        let task = self.task
        do {
            try await withCallback { (completion: CallbackCompletion<Void>) in
                task.sendPing { error in completion.resume(with: error.map { .failure($0) } ?? .success(())) }
                return .notSupported
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw WebSocketError.notConnected
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        let first = closing.withLock { closing in
            defer { closing = true }
            return !closing
        }
        guard first else { return }
        let closeCode =
            code.canBeSent
            ? URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure : .normalClosure
        // A close frame's reason is at most 123 bytes: cut at a character.
        var bytes = Data()
        for character in reason where bytes.count + character.utf8.count <= 123 {
            bytes.append(contentsOf: character.utf8)
        }
        task.cancel(with: closeCode, reason: bytes)
    }
}
