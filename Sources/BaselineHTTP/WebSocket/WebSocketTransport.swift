import Foundation
import HTTPTypes

/// Opens WebSocket connections (RFC 6455): the transport half of
/// ``HTTPClient/webSocket(_:configuration:onConnect:)``.
///
/// A transport that also speaks HTTP conforms to both protocols, so one
/// client value makes requests and opens sockets through the same
/// middleware. ``URLSessionTransport`` conforms with
/// `URLSessionWebSocketTask`; the AsyncHTTPClient transport package with
/// SwiftNIO's WebSocket codec (the path to use on Linux, where
/// FoundationNetworking's WebSocket task needs a libcurl built with
/// WebSocket support). `StubWebSocketTransport` in `BaselineTesting` serves
/// tests.
///
/// Conforming types must:
/// - send the handshake for `request` as given, with its header fields
///   (the `Authorization` a middleware added, `Sec-WebSocket-Protocol`),
///   adding the handshake's own fields (`Upgrade`, `Connection`,
///   `Sec-WebSocket-Key`, `Sec-WebSocket-Version`) themselves; the request's
///   scheme is `http` or `https` and stands for `ws` or `wss`;
/// - return a refused upgrade (any status but 101, or a 101 that fails the
///   handshake's checks) as ``WebSocketHandshake/refused(_:body:)`` with the
///   response, never as an error, so that middleware sees a 401 and can
///   refresh a token;
/// - throw ``TransportFailure`` (or the transport's own error) when no
///   connection could be made, and `CancellationError` when the task is
///   cancelled.
public protocol WebSocketTransport: Sendable {
    /// Sends the opening handshake for `request` and returns its outcome.
    func openWebSocket(
        _ request: HTTPRequest,
        limits: WebSocketLimits
    ) async throws -> WebSocketHandshake
}

/// The outcome of a WebSocket opening handshake.
public enum WebSocketHandshake: Sendable {
    /// The server switched protocols (101): the connection is open.
    case upgraded(HTTPResponse, any WebSocketConnection)
    /// The server answered with anything else, say 401 or a 200 from a
    /// server that does not speak WebSocket; `body` is what it sent.
    case refused(HTTPResponse, body: HTTPBody)
}

/// One open WebSocket connection, as a transport provides it.
///
/// ``WebSocket`` drives a connection: keep-alive, reconnection and
/// cancellation are its work, so a transport only moves frames. One task
/// receives at a time; sends, pings and `close` may come from any task
/// while it does.
///
/// Conforming types must:
/// - answer the peer's pings with pongs, and its close frame with one of
///   their own, without being asked;
/// - assemble fragmented messages and deliver whole ones, refusing one
///   larger than ``WebSocketLimits/maximumMessageSize`` or a frame larger than
///   ``WebSocketLimits/maximumFrameSize`` (close code 1009, then
///   ``WebSocketError/messageTooLarge(limit:)``), and a text message that is
///   not UTF-8 (1007, then ``WebSocketError/invalidUTF8``);
/// - keep at most a bounded number of received messages the reader has not
///   taken, and stop reading the socket until it takes them.
public protocol WebSocketConnection: Sendable {
    /// The next event from the peer.
    ///
    /// After ``WebSocketEvent/closed(_:reason:)`` every call returns it
    /// again. Throws ``WebSocketError/connectionLost(_:)`` when the
    /// connection ends without a close frame, the errors the protocol names
    /// for bad input, and `CancellationError` when the task is cancelled
    /// (which leaves the connection open).
    func receive() async throws -> WebSocketEvent

    /// Sends one message; returns when the transport has taken it, which
    /// may be before it is written (a queue), as long as what waits is
    /// bounded: a peer that stops reading must make `send` wait, not memory
    /// grow. Messages go out in the order sent, and ahead of a later
    /// ``close(_:reason:)``'s close frame. Throws
    /// ``WebSocketError/notConnected`` once the connection is closing.
    func send(_ message: WebSocketMessage) async throws

    /// Sends a ping and returns when the peer's pong to it arrives. Throws
    /// ``WebSocketError/notConnected`` if the connection closes first.
    func ping() async throws

    /// Starts the closing handshake with `code` and `reason` (at most 123
    /// bytes of UTF-8) and closes the connection once the peer answers or
    /// after a short wait, whichever comes first. A code that may not be
    /// sent (``WebSocketCloseCode/canBeSent``: 1005, 1006 and 1015 only
    /// report) goes out as 1000, normal closure. Calling it again, or after
    /// the peer closed, does nothing. A pending ``receive()`` then returns
    /// ``WebSocketEvent/closed(_:reason:)`` or throws.
    func close(_ code: WebSocketCloseCode, reason: String) async
}

/// What a ``WebSocketConnection`` received.
public enum WebSocketEvent: Sendable, Equatable {
    /// A whole message.
    case message(WebSocketMessage)
    /// The peer's close frame: its code (`nil` when the frame had none,
    /// which RFC 6455 reports as 1005) and reason.
    case closed(WebSocketCloseCode?, reason: String)
}

/// Size limits a transport enforces on what it receives.
public struct WebSocketLimits: Sendable, Equatable {
    /// The largest message accepted, in bytes, its fragments together.
    public var maximumMessageSize: Int
    /// The largest single frame accepted, in bytes.
    public var maximumFrameSize: Int

    /// Limits; the defaults take a 1 MiB message in frames of up to 1 MiB.
    public init(maximumMessageSize: Int = 1 << 20, maximumFrameSize: Int = 1 << 20) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumFrameSize = maximumFrameSize
    }
}
