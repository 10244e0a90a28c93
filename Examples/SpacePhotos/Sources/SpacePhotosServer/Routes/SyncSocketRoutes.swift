import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// `GET /sync/live`: a WebSocket that tells a member's devices when to pull,
/// with `Authorization: Bearer <idToken>` at the handshake as for
/// `GET /members/me`.
///
/// The server sends JSON text, `{"cursor": n}`: the member's cursor on
/// connecting, then again each time a push of that member (from any
/// connection or device) changes rows. A client pulls when the cursor is
/// past its own. Only the latest cursor matters, so a client that reads
/// slowly gets the latest one when it reads again, not every one in between
/// (``SyncCursorFeed``), and is never dropped for it.
///
/// A missing, invalid or expired token gets a plain 401 with the JSON error
/// and no upgrade; a GET without the upgrade gets 426. Text from the client
/// is read and ignored; a binary message closes the socket with 1008, a
/// message over 4 KiB with 1009. Stopping the server closes it (1000).
struct SyncSocketRoutes: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    static let path = "/sync/live"

    /// What the server sends.
    struct Message: Codable, Equatable, Sendable {
        /// The member's cursor: rows after it are there to pull.
        var cursor: Int64
    }

    /// Checks bearer tokens, as `GET /members/me` does.
    let members: MemberRoutes
    let store: any SyncStore
    let feed: SyncCursorFeed

    /// The route for requests that do not ask for the upgrade: 426.
    func add(to router: Router<ServerRequestContext>) {
        router.get("sync/live") { _, _ -> Response in
            throw APIError.upgradeRequired(at: Self.path)
        }
    }

    /// Whether `head` asks for this socket (its query aside).
    static func matches(_ head: HTTPRequest) -> Bool {
        guard let path = head.path else { return false }
        return path.prefix { $0 != "?" } == Self.path
    }

    /// Decides an upgrade request, on the connection's event loop: the
    /// session for a member's valid GET; for any other, the JSON error is
    /// written on the connection and the upgrade refused.
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel, logger: Logger) -> ShouldUpgradeResult<Handler> {
        do {
            let member = try admit(head)
            return .upgrade([:]) { inbound, outbound, context in
                try await serve(inbound: inbound, outbound: outbound, member: member, logger: context.logger)
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

    /// The member an upgrade request is for; the error to answer otherwise.
    func admit(_ head: HTTPRequest) throws(APIError) -> String {
        guard head.method == .get else {
            throw APIError(.methodNotAllowed, code: "method_not_allowed", message: "Open \(Self.path) with GET.")
        }
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        do {
            return try members.authenticate(request).id
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.badRequest, code: "bad_request", message: "The upgrade request is not valid.")
        }
    }

    /// One connection: cursors go out while the client's messages are read,
    /// until either side closes.
    func serve(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        member: String,
        logger: Logger
    ) async throws {
        // Subscribed before the cursor is read: a push in between is not missed.
        let subscription = feed.subscribe(member: member)
        defer { feed.unsubscribe(subscription) }
        do {
            subscription.offer(try await store.cursor(member: member))
        } catch {
            logger.error("The sync store did not answer", metadata: ["error.type": "\(type(of: error))"])
            try await outbound.close(.unexpectedServerError, reason: "The server cannot read its sync data.")
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await send(subscription, to: outbound)
            }
            try await receive(from: inbound, closingWith: outbound)
            group.cancelAll()
        }
    }

    /// Sends each cursor the subscription yields.
    func send(_ subscription: SyncCursorFeed.Subscription, to outbound: WebSocketOutboundWriter) async {
        let encoder = JSONEncoder()
        let epoch = store.epoch
        do {
            // The feed counts in `seq`s; clients hold cursors.
            for await seq in subscription.cursors {
                let cursor = SyncCursor(seq: seq, epoch: epoch).rawValue
                let text = String(decoding: try encoder.encode(Message(cursor: cursor)), as: UTF8.self)
                try await outbound.write(.text(text))
            }
        } catch {
            // The socket is closing (or closed): nothing more can go out.
        }
    }

    /// Reads the client's messages, ignoring text, until it closes; closes
    /// with 1008 on a binary one.
    func receive(
        from inbound: WebSocketInboundStream,
        closingWith outbound: WebSocketOutboundWriter
    ) async throws {
        for try await message in inbound.messages(maxSize: FavouriteSocketRoutes.maximumMessageBytes) {
            guard case .text = message else {
                try await outbound.close(.policyViolation, reason: "Binary messages are not accepted.")
                return
            }
        }
    }
}
