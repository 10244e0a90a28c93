import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

/// The live favourites on the real client (`FavouritesClient.live`) over a
/// stub WebSocket: the test plays the server.
@MainActor
@Suite("Favourites", .timeLimit(.minutes(2)))
struct FavouritesTests {
    struct Change: Decodable, Equatable {
        var photo: String
        var favourite: Bool
    }

    let transport = StubTransport()
    let server: StubWebSocketServer

    init() {
        server = transport.webSocket("/favourites/live")
    }

    var client: FavouritesClient {
        .live(client: HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport))
    }

    func deliver(_ count: FavouriteCount, on connection: StubWebSocket) throws {
        connection.deliver(try .json(count))
    }

    @Test func theSnapshotThenEveryChangeShows() async throws {
        let store = TestStore(initialState: Favourites.State()) { Favourites(client: client) }
        await store.send(.start)
        let connection = try await server.nextConnection()
        await store.receive(.event(.connected)) { $0.isLive = true }

        try deliver(FavouriteCount(photo: "1995-06-16", count: 3, favourite: true), on: connection)
        await store.receive(.event(.count(FavouriteCount(photo: "1995-06-16", count: 3, favourite: true)))) {
            $0.counts = ["1995-06-16": 3]
            $0.mine = ["1995-06-16"]
        }
        // Another member's change: the count moves, this member's flag stays.
        try deliver(FavouriteCount(photo: "1969-07-20", count: 1, favourite: false), on: connection)
        await store.receive(.event(.count(FavouriteCount(photo: "1969-07-20", count: 1, favourite: false)))) {
            $0.counts["1969-07-20"] = 1
        }
        await store.send(.stop) { $0.isLive = false }
        await store.finish()
        #expect(try await connection.nextClose() == .goingAway)
    }

    @Test func aToggleAsksTheServerAndTheAnswerChangesTheCount() async throws {
        let store = TestStore(initialState: Favourites.State()) { Favourites(client: client) }
        await store.send(.start)
        let connection = try await server.nextConnection()
        await store.receive(.event(.connected)) { $0.isLive = true }

        await store.send(.toggle("1995-06-16")) { $0.pending = ["1995-06-16"] }
        // A second press while the first is on its way asks nothing more.
        await store.send(.toggle("1995-06-16"))
        #expect(try await connection.nextSent().decode(Change.self) == Change(photo: "1995-06-16", favourite: true))
        try deliver(FavouriteCount(photo: "1995-06-16", count: 1, favourite: true), on: connection)
        await store.receive(.event(.count(FavouriteCount(photo: "1995-06-16", count: 1, favourite: true)))) {
            $0.counts = ["1995-06-16": 1]
            $0.mine = ["1995-06-16"]
            $0.pending = []
        }

        await store.send(.toggle("1995-06-16")) { $0.pending = ["1995-06-16"] }
        #expect(try await connection.nextSent().decode(Change.self) == Change(photo: "1995-06-16", favourite: false))
        try deliver(FavouriteCount(photo: "1995-06-16", count: 0, favourite: false), on: connection)
        await store.receive(.event(.count(FavouriteCount(photo: "1995-06-16", count: 0, favourite: false)))) {
            $0.counts = [:]
            $0.mine = []
            $0.pending = []
        }
        await store.send(.stop) { $0.isLive = false }
        await store.finish()
    }

    @Test func theServersRefusalIsShown() async throws {
        let store = TestStore(initialState: Favourites.State()) { Favourites(client: client) }
        await store.send(.start)
        let connection = try await server.nextConnection()
        await store.receive(.event(.connected)) { $0.isLive = true }
        await store.send(.toggle("1995-06-16")) { $0.pending = ["1995-06-16"] }
        _ = try await connection.nextSent()
        connection.deliver(.text(#"{"error":{"code":"too_many_photos","message":"Too many photos."}}"#))
        await store.receive(.event(.refused("Too many photos."))) {
            $0.pending = []
            $0.message = "Too many photos."
        }
        await store.send(.stop) { $0.isLive = false }
        await store.finish()
    }

    @Test func aToggleWithoutAConnectionSaysSo() async throws {
        let store = TestStore(initialState: Favourites.State()) { Favourites(client: .unavailable) }
        await store.send(.toggle("1995-06-16")) { $0.pending = ["1995-06-16"] }
        await store.receive(
            .toggleFailed(
                "1995-06-16",
                message: "Could not change the favourite: \(ErrorMessage.line(for: WebSocketError.notConnected))"
            )
        ) {
            $0.pending = []
            $0.message = "Could not change the favourite: \(ErrorMessage.line(for: WebSocketError.notConnected))"
        }
        await store.finish()
    }

    @Test func aConnectionTheServerEndsIsShownAsEnded() async throws {
        let store = TestStore(initialState: Favourites.State()) { Favourites(client: client) }
        await store.send(.start)
        let connection = try await server.nextConnection()
        await store.receive(.event(.connected)) { $0.isLive = true }
        connection.closeFromServer(.normalClosure)
        await store.receive(.ended(errorMessage: nil)) { $0.isLive = false }
        await store.finish()
    }
}
