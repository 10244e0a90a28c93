import BaselineConcurrency
import BaselineHTTP
import Foundation

/// A photo's favourite count, and whether this member is among those who
/// chose it: what the server's live favourites send.
public nonisolated struct FavouriteCount: Codable, Equatable, Sendable {
    /// The photo's day (`yyyy-MM-dd`).
    public var photo: String
    /// How many members have it as a favourite.
    public var count: Int
    /// Whether this member does.
    public var favourite: Bool

    /// A count.
    public init(photo: String, count: Int, favourite: Bool) {
        self.photo = photo
        self.count = count
        self.favourite = favourite
    }
}

/// What the live favourites report.
public nonisolated enum FavouritesEvent: Equatable, Sendable {
    /// A connection opened: the counts that follow are the server's snapshot.
    case connected
    /// A photo's count changed, or arrived with the snapshot.
    case count(FavouriteCount)
    /// The server refused a change; the message says why.
    case refused(String)
}

/// The live favourites: counts as they change, and setting this member's.
///
/// A struct of closures, so tests put doubles in;
/// ``live(client:clock:)`` keeps one WebSocket to `GET /favourites/live`.
public nonisolated struct FavouritesClient: Sendable {
    /// The events, for as long as the caller reads them: reading starts the
    /// connection and cancelling the reader closes it.
    public var events: @Sendable () -> AsyncThrowingStream<FavouritesEvent, any Error>
    /// Makes a photo this member's favourite, or not (idempotent); throws
    /// while no connection is open.
    public var set: @Sendable (_ photo: String, _ favourite: Bool) async throws -> Void

    /// A client from the two closures.
    public init(
        events: @escaping @Sendable () -> AsyncThrowingStream<FavouritesEvent, any Error>,
        set: @escaping @Sendable (_ photo: String, _ favourite: Bool) async throws -> Void
    ) {
        self.events = events
        self.set = set
    }

    /// No favourites: events never come, and setting one fails.
    public static let unavailable = FavouritesClient(
        events: { AsyncThrowingStream { _ in } },
        set: { _, _ in throw WebSocketError.notConnected }
    )
}

nonisolated extension FavouritesClient {
    private struct Change: Encodable {
        var photo: String
        var favourite: Bool
    }

    /// One WebSocket to the server's live favourites through `client` (whose
    /// middleware authenticates the handshake), reconnecting after a drop
    /// with backoff measured on the client's clock.
    public static func live(client: HTTPClient) -> FavouritesClient {
        let current = LockedValue<WebSocket?>(nil)
        return FavouritesClient(
            events: {
                AsyncThrowingStream { continuation in
                    let reader = Task {
                        do {
                            let socket = try await client.webSocket(
                                .get("/favourites/live"),
                                configuration: .init(reconnection: .init(maximumDelay: .seconds(10)))
                            ) { _ in
                                continuation.yield(.connected)
                            }
                            current.withLock { $0 = socket }
                            defer { current.withLock { if $0 === socket { $0 = nil } } }
                            for try await message in socket.messages {
                                continuation.yield(Self.event(from: message))
                            }
                            continuation.finish()
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                    continuation.onTermination = { _ in reader.cancel() }
                }
            },
            set: { photo, favourite in
                guard let socket = current.current else { throw WebSocketError.notConnected }
                try await socket.send(json: Change(photo: photo, favourite: favourite))
            }
        )
    }

    private struct Refusal: Decodable {
        struct Detail: Decodable { var message: String }
        var error: Detail
    }

    /// A count, or the server's word on a change it refused.
    static func event(from message: WebSocketMessage) -> FavouritesEvent {
        if let count = try? message.decode(FavouriteCount.self) { return .count(count) }
        if let refusal = try? message.decode(Refusal.self) { return .refused(refusal.error.message) }
        return .refused("The server sent a message this app does not read.")
    }
}
