import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// `GET /favourites/live`: the members' favourite photos, live, over a
/// WebSocket (RFC 6455), with `Authorization: Bearer <idToken>` as for
/// `GET /members/me`.
///
/// A missing, invalid or expired token gets a plain 401 with the JSON error
/// and no upgrade (clients refresh the token on it); a GET without the
/// upgrade gets 426.
///
/// Messages are JSON text. The client sends `{"photo": id, "favourite": bool}`,
/// which sets its member's flag (a photo id is 1…64 characters of
/// `A-Z a-z 0-9 . _ -`). The server sends `{"photo", "count", "favourite"}`:
/// on connecting, one per photo with a count above zero; then one to every
/// connection each time a set changes something, `favourite` being that
/// connection's member's own flag; a set that changes nothing is confirmed
/// to its sender alone. When the table is full (``FavouriteTable/capacity``)
/// the sender gets `{"error": {"code": "too_many_photos", "message"}}` and
/// the socket stays open.
///
/// The socket is closed with 1008 for a binary message, bad JSON or a bad
/// photo id, 1009 for a message over 4 KiB, and 1008 when the client reads
/// so slowly that it falls more than ``FavouriteTable/queueLimit`` messages
/// behind. Stopping the server closes it (1000).
///
/// A test knob: `?dropAfter=N` (0…10,000) ends the connection abruptly, a
/// TCP close with no close frame, after the server has sent N messages.
struct FavouriteSocketRoutes: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    static let path = "/favourites/live"
    /// The largest message, and frame, a client may send.
    static let maximumMessageBytes = 4 * 1024
    static let maximumDropAfter = 10_000
    /// How long a client that fell behind has to take its close frame
    /// before the connection is cut.
    static let closeGrace: TimeAmount = .seconds(5)

    /// Checks bearer tokens, as `GET /members/me` does.
    let members: MemberRoutes
    let table: FavouriteTable

    /// The route for requests that do not ask for the upgrade: 426.
    func add(to router: Router<ServerRequestContext>) {
        router.get("favourites/live") { _, _ -> Response in
            throw APIError.upgradeRequired(at: Self.path)
        }
    }

    /// Decides an upgrade request, on the connection's event loop: the
    /// session for a member's valid request; for any other, the JSON error
    /// is written on the connection and the upgrade refused.
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel, logger: Logger) -> ShouldUpgradeResult<Handler> {
        do {
            let (member, dropAfter) = try admit(head)
            return .upgrade([:]) { inbound, outbound, _ in
                try await serve(
                    inbound: inbound,
                    outbound: outbound,
                    member: member,
                    dropAfter: dropAfter,
                    channel: channel
                )
            }
        } catch {
            logger.debug(
                "WebSocket upgrade refused",
                metadata: ["status": "\(error.status.code)", "code": "\(error.code)"]
            )
            UpgradeRefusal.send(error, on: channel)
            return .dontUpgrade
        }
    }

    /// The member an upgrade request is for and its `dropAfter`; the error
    /// to answer otherwise.
    func admit(_ head: HTTPRequest) throws(APIError) -> (member: String, dropAfter: Int?) {
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        guard request.uri.path == Self.path else {
            throw APIError(
                .notFound,
                code: "not_found",
                message:
                    "There is no WebSocket at \(request.uri.path.prefix(200)): the WebSockets are \(Self.path) and \(EchoSocketRoutes.path)."
            )
        }
        guard head.method == .get else {
            throw APIError(.methodNotAllowed, code: "method_not_allowed", message: "Open \(Self.path) with GET.")
        }
        do {
            let account = try members.authenticate(request)
            let dropAfter = try request.integerParameter("dropAfter", in: 0...Self.maximumDropAfter)
            return (account.id, dropAfter)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.badRequest, code: "bad_request", message: "The upgrade request is not valid.")
        }
    }

    /// One connection: its queue goes out while its messages come in, until
    /// either side closes.
    func serve(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        member: String,
        dropAfter: Int?,
        channel: any Channel
    ) async throws {
        let subscription = table.subscribe(member: member) {
            // The client stopped reading: the close frame waits behind what
            // it has not read, so give it a moment, then cut the connection.
            _ = channel.eventLoop.scheduleTask(in: Self.closeGrace) { channel.close(promise: nil) }
        }
        defer { table.unsubscribe(subscription) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await send(subscription, to: outbound, dropAfter: dropAfter, channel: channel)
            }
            try await receive(from: inbound, closingWith: outbound, subscription: subscription)
            group.cancelAll()
        }
    }

    /// Sends the subscription's queue, message by message.
    func send(
        _ subscription: FavouriteTable.Subscription,
        to outbound: WebSocketOutboundWriter,
        dropAfter: Int?,
        channel: any Channel
    ) async {
        var sent = 0
        do {
            if dropAfter == 0 { return drop(channel) }
            for await entry in subscription.messages {
                if subscription.hasOverflowed { break }
                for text in entry.texts() {
                    try await outbound.write(.text(text))
                    sent += 1
                    if sent == dropAfter { return drop(channel) }
                }
            }
            if subscription.hasOverflowed {
                try await outbound.close(
                    .policyViolation,
                    reason: "Too slow: fell behind by more than \(table.queueLimit) messages."
                )
            }
        } catch {
            // The socket is closing (or closed): nothing more can go out.
        }
    }

    /// Reads the client's messages and applies them, until it closes; closes
    /// with 1008 on the first one that is not a valid set.
    func receive(
        from inbound: WebSocketInboundStream,
        closingWith outbound: WebSocketOutboundWriter,
        subscription: FavouriteTable.Subscription
    ) async throws {
        for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
            guard case .text(let text) = message else {
                try await outbound.close(.policyViolation, reason: "Binary messages are not accepted: send JSON text.")
                return
            }
            let request: FavouriteRequest
            do {
                request = try FavouriteRequest.parse(text)
            } catch {
                try await outbound.close(.policyViolation, reason: error.reason)
                return
            }
            table.set(photo: request.photo, favourite: request.favourite, from: subscription)
        }
    }

    /// `?dropAfter=`: closes the TCP connection with no close frame. The
    /// close follows the last write on the channel's event loop, so what
    /// was written goes out first.
    private func drop(_ channel: any Channel) {
        channel.close(promise: nil)
    }
}
