import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket

@testable import SpacePhotosServer

/// A client of `GET /favourites/live` (or another socket) on a running server (WSClient over
/// loopback): what it receives arrives in order through ``next()``, what the
/// test sends goes out in order, and ``finished`` ends with the server's
/// close frame, nil when the connection ended without one.
final class LiveSocket {
    enum Outgoing: Sendable {
        case frame(WebSocketOutboundWriter.OutboundFrame)
        case close
    }

    /// A message from the server: an update, or the `{"error": …}` document.
    enum Message: Equatable {
        case update(FavouriteUpdate)
        case error(code: String)
    }

    private var iterator: AsyncStream<WebSocketMessage>.Iterator
    private let outgoing: AsyncStream<Outgoing>.Continuation
    /// The connection: its close frame, or the error that ended it.
    let finished: Task<WebSocketCloseFrame?, any Error>

    /// Connects to `path` (with its query) as the member `token` names, if any.
    init(port: Int, token: String?, path: String = "/favourites/live") {
        let (received, receivedSink) = AsyncStream.makeStream(of: WebSocketMessage.self)
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        iterator = received.makeAsyncIterator()
        self.outgoing = outgoing
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var logger = Logger(label: "live-socket-test")
        logger.logLevel = .error
        finished = Task { [headers, logger] in
            defer { receivedSink.finish() }
            return try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(path)",
                configuration: .init(additionalHeaders: headers),
                logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await item in outgoingStream {
                            switch item {
                            case .frame(let frame): try await outbound.write(frame)
                            case .close: try await outbound.close(.normalClosure, reason: nil)
                            }
                        }
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        receivedSink.yield(message)
                    }
                    receivedSink.finish()
                    group.cancelAll()
                }
            }
        }
    }

    deinit {
        outgoing.finish()
        finished.cancel()
    }

    /// Sends `{"photo": photo, "favourite": favourite}`.
    func set(_ photo: String, _ favourite: Bool) {
        send(text: #"{"photo":"\#(photo)","favourite":\#(favourite)}"#)
    }

    func send(text: String) {
        outgoing.yield(.frame(.text(text)))
    }

    func send(_ frame: WebSocketOutboundWriter.OutboundFrame) {
        outgoing.yield(.frame(frame))
    }

    /// Starts the closing handshake (1000).
    func close() {
        outgoing.yield(.close)
    }

    /// The next message the server sent, as it came, nil once the
    /// connection has ended.
    func nextMessage() async -> WebSocketMessage? {
        await iterator.next()
    }

    /// The next text message the server sent, parsed, nil once the
    /// connection has ended.
    func next() async throws -> Message? {
        while let message = await iterator.next() {
            // The favourites socket sends text only; anything else is skipped.
            guard case .text(let text) = message else { continue }
            let data = Data(text.utf8)
            if let update = try? JSONDecoder().decode(FavouriteUpdate.self, from: data) {
                return .update(update)
            }
            return .error(code: try JSONDecoder().decode(APIError.Document.self, from: data).error.code)
        }
        return nil
    }

    /// The next message, which must be an update.
    func nextUpdate() async throws -> FavouriteUpdate? {
        switch try await next() {
        case .update(let update)?: update
        default: nil
        }
    }

    /// The messages still to come until the connection ends.
    func rest() async throws -> [Message] {
        var messages: [Message] = []
        while let message = try await next() { messages.append(message) }
        return messages
    }
}

/// One HTTP/1.1 exchange over a raw TCP connection, read to its end: for
/// what a WebSocket client library would not show (a refused upgrade's
/// status and body, and that nothing follows them).
enum RawExchange {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
        /// Bytes after the body that its `Content-Length` does not cover.
        var trailing: String
    }

    static let upgradeHeaders =
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

    /// Sends `request` as written and reads until the server closes.
    static func send(_ request: String, port: Int) async throws -> Answer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let text = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var received = ByteBuffer()
            for try await var chunk in inbound { received.writeBuffer(&chunk) }
            return String(buffer: received)
        }
        return try parse(text)
    }

    /// An upgrade request for `path`, with `authorization` if any.
    static func upgrade(_ path: String, authorization: String?, port: Int) async throws -> Answer {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + upgradeHeaders
        if let authorization { request += "Authorization: \(authorization)\r\n" }
        return try await send(request + "\r\n", port: port)
    }

    struct Malformed: Error {
        var text: String
    }

    static func parse(_ text: String) throws -> Answer {
        guard let split = text.range(of: "\r\n\r\n") else { throw Malformed(text: text) }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw Malformed(text: text) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        let rest = Array(text[split.upperBound...].utf8)
        let length = headers["content-length"].flatMap { Int($0) } ?? rest.count
        guard length <= rest.count else { throw Malformed(text: text) }
        return Answer(
            status: status,
            headers: headers,
            body: String(decoding: rest[..<length], as: UTF8.self),
            trailing: String(decoding: rest[length...], as: UTF8.self)
        )
    }
}
