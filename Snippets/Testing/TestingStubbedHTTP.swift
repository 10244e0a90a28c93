// Tests of an API client against a stub transport: canned answers, answers
// in sequence, answers held until the test releases them, and the requests
// the code really sent.

// snippet.hide
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

struct Book: Codable, Equatable, Sendable {
    var id: Int
    var title: String
}

struct Review: Codable, Equatable, Sendable {
    var bookID: Int
    var stars: Int
}

/// The code under test: a thin layer over the client.
struct BookService {
    let client: HTTPClient

    func popular() async throws -> [Book] {
        try await client.send(.get("/books/popular", query: [URLQueryItem(name: "limit", value: "20")])).value
    }

    func post(_ review: Review) async throws {
        try await client.send(Request<Void>.post("/reviews", body: .json(review)))
    }
}

// snippet.show
// snippet.setup
@Suite(.timeLimit(.minutes(1)))
struct BookServiceTests {
    let transport = StubTransport()
    let client: HTTPClient
    let service: BookService

    init() {
        // The real client, with its middleware and decoding; only the
        // network is replaced.
        client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
        service = BookService(client: client)
    }
    // snippet.end

    // snippet.json
    @Test func decodesPopularBooks() async throws {
        transport.on(.get, "/books/popular", respond: try .json([Book(id: 1, title: "Dune")]))

        #expect(try await service.popular() == [Book(id: 1, title: "Dune")])
        // Routes match the path; the query is recorded for the test to check.
        #expect(transport.requests.first?.query == [URLQueryItem(name: "limit", value: "20")])
    }
    // snippet.end

    // snippet.status
    @Test func aServerErrorIsAnError() async throws {
        transport.on(.get, "/books/popular", respond: .status(.serviceUnavailable))

        await #expect(throws: HTTPClientError.self) { try await service.popular() }
    }

    @Test func malformedJSONFailsDecoding() async throws {
        transport.on(.get, "/books/popular", respond: .text(#"[{"id": 1}]"#, contentType: "application/json"))

        await #expect(throws: HTTPClientError.self) { try await service.popular() }
    }
    // snippet.end

    // snippet.body
    @Test func postsTheReview() async throws {
        transport.on(.post, "/reviews", respond: .status(.created))

        try await service.post(Review(bookID: 1, stars: 5))

        let request = try #require(transport.requests.first)
        #expect(request.method == .post)
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(try request.decodeBody(Review.self) == Review(bookID: 1, stars: 5))
    }
    // snippet.end

    // snippet.script
    @Test func answersInOrder() async throws {
        // One answer per request, in order; a request past the end fails.
        transport.on(
            .get,
            "/books/popular",
            script: [
                try .json([Book(id: 1, title: "Dune")]),
                try .json([Book(id: 2, title: "Emma")]),
            ]
        )

        #expect(try await service.popular().map(\.title) == ["Dune"])
        #expect(try await service.popular().map(\.title) == ["Emma"])
        await #expect(throws: (any Error).self) { try await service.popular() }
    }
    // snippet.end

    // snippet.hold
    @Test func aRequestInFlight() async throws {
        let held = transport.hold(.get, "/books/popular")
        let loading = Task { try await service.popular() }

        // The request has reached the transport and waits for the test.
        let call = try await held.nextCall()
        #expect(call.arguments.path == "/books/popular")
        call.resume(returning: try .json([Book(id: 3, title: "Ulysses")]))

        #expect(try await loading.value.map(\.id) == [3])
    }
    // snippet.end

    // snippet.streaming
    @Test func readsUpdatesAsTheyArrive() async throws {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        transport.on(.get, "/books/updates", respond: .streaming(chunks))

        let response = try await client.stream(.get("/books/updates") as Request<Data>)
        var updates = response.body.jsonLines(of: Book.self).makeAsyncIterator()

        // Each line reaches the reader when the test sends it, not before.
        feed.yield(Data(#"{"id":1,"title":"Dune"}"#.utf8) + Data("\n".utf8))
        #expect(try await updates.next() == Book(id: 1, title: "Dune"))

        feed.yield(Data(#"{"id":2,"title":"Emma"}"#.utf8) + Data("\n".utf8))
        feed.finish()
        #expect(try await updates.next() == Book(id: 2, title: "Emma"))
        #expect(try await updates.next() == nil)
    }
    // snippet.end

    // snippet.noroute
    @Test func anUnexpectedRequestFails() async throws {
        // No route for it: the transport throws rather than invent an answer.
        await #expect(throws: (any Error).self) { try await service.post(Review(bookID: 1, stars: 1)) }
        #expect(transport.requests.map(\.path) == ["/reviews"])
    }
    // snippet.end
}
