import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// `GET /echo/socket`: a WebSocket that sends every message back as it
/// came, text as text and binary as binary, for benchmarks and for clients
/// checking their socket code. No token is needed.
///
/// Messages and frames are at most 4 KiB, as on `GET /favourites/live`
/// (the limit is the server's, for both sockets): a larger one closes the
/// socket with 1009. The echo of one message is written before the next is
/// read, so a client that stops reading stops the echo, not the server.
/// A GET without the upgrade gets 426.
enum EchoSocketRoutes {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    static let path = "/echo/socket"

    /// The route for requests that do not ask for the upgrade: 426.
    static func add(to router: Router<ServerRequestContext>) {
        router.get("echo/socket") { _, _ -> Response in
            throw APIError.upgradeRequired(at: Self.path)
        }
    }

    /// Whether `head` asks for this socket (its query aside).
    static func matches(_ head: HTTPRequest) -> Bool {
        guard let path = head.path else { return false }
        return path.prefix { $0 != "?" } == Self.path
    }

    /// Upgrades a GET; refuses any other method with the JSON error.
    static func shouldUpgrade(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<Handler> {
        guard head.method == .get else {
            UpgradeRefusal.send(
                APIError(.methodNotAllowed, code: "method_not_allowed", message: "Open \(Self.path) with GET."),
                on: channel
            )
            return .dontUpgrade
        }
        return .upgrade([:]) { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: FavouriteSocketRoutes.maximumMessageBytes) {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let bytes): try await outbound.write(.binary(bytes))
                }
            }
        }
    }
}
