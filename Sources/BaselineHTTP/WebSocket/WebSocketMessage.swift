import Foundation
import HTTPTypes

/// A WebSocket message: text or binary.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's bytes: a text message's UTF-8, or the binary data.
    public var data: Data {
        switch self {
        case let .text(text): Data(text.utf8)
        case let .binary(data): data
        }
    }

    /// A text message holding `value` as JSON.
    ///
    /// ```swift
    /// try await socket.send(.json(Favourite(photoID: id, on: true)))
    /// ```
    public static func json(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws -> WebSocketMessage {
        // JSONEncoder writes UTF-8, so the conversion cannot fail.
        .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The message decoded from JSON, whether it came as text or binary.
    ///
    /// Throws ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``
    /// when it does not decode, with the start of the message.
    public func decode<Value: Decodable>(
        _ type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONDecoder()
    ) throws
        -> Value
    {
        let bytes = data
        do {
            return try decoder.decode(Value.self, from: bytes)
        } catch {
            throw HTTPClientError.decodingFailed(error, body: bytes)
        }
    }
}

/// A close code (RFC 6455 section 7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's number.
    public var rawValue: UInt16

    /// A close code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a page left).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: the endpoint cannot take this kind of data.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: a message's data did not match its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too large to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether an endpoint may send this code in a close frame: 1000–1003,
    /// 1007–1011 and 3000–4999 (1004–1006 and 1015 are reserved for reports
    /// and never sent).
    public var canBeSent: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    /// The number, and its name when RFC 6455 gives one: "1000 (normal closure)".
    public var description: String {
        let name: String? =
            switch rawValue {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1007: "invalid payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1010: "mandatory extension"
            case 1011: "internal server error"
            default: nil
            }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}

/// Why a WebSocket failed.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server did not switch protocols: its response, say 401 or a 200
    /// from a server that does not speak WebSocket, and the start of its body.
    case handshakeRefused(HTTPResponse, body: Data)
    /// The client's transport cannot open WebSockets.
    case unsupportedTransport(String)
    /// The peer closed the connection with a code other than 1000 (normal
    /// closure), or with none (`nil`).
    case closed(WebSocketCloseCode?, reason: String)
    /// The connection ended without a closing handshake; `detail` says how.
    case connectionLost(String)
    /// The peer did not answer a ping within the keep-alive's timeout: the
    /// connection was closed as dead.
    case peerNotResponding
    /// A message or frame was larger than the limit: the connection was
    /// closed with 1009.
    case messageTooLarge(limit: Int)
    /// A text message was not UTF-8: the connection was closed with 1007.
    case invalidUTF8
    /// The peer broke RFC 6455 (a masked frame from a server, a bad opcode,
    /// a fragmented control frame…): the connection was closed with 1002.
    case protocolViolation(String)
    /// The socket is closed or reconnecting: the message was not sent.
    case notConnected

    /// One line for a person.
    public var description: String {
        switch self {
        case let .handshakeRefused(head, _):
            "The server refused the WebSocket upgrade with \(head.status)"
        case let .unsupportedTransport(name): "\(name) cannot open WebSockets"
        case let .closed(code, reason):
            "The server closed the WebSocket with \(code.map(String.init(describing:)) ?? "no code")"
                + (reason.isEmpty ? "" : ": \(reason)")
        case let .connectionLost(detail): "The WebSocket connection was lost (\(detail))"
        case .peerNotResponding: "The server stopped answering pings; the WebSocket was closed"
        case let .messageTooLarge(limit): "A WebSocket message was larger than \(limit) bytes"
        case .invalidUTF8: "A WebSocket text message was not valid UTF-8"
        case let .protocolViolation(detail): "The server broke the WebSocket protocol (\(detail))"
        case .notConnected: "The WebSocket is not connected"
        }
    }
}
