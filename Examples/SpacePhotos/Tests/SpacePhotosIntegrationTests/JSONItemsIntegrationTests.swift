import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("GET /json/items: the benchmark payload", .timeLimit(.minutes(2)))
struct JSONItemsIntegrationTests {
    struct Item: Decodable, Equatable {
        var id: Int
        var name: String
        var score: Double
        var isFeatured: Bool
        var tags: [String]
    }

    @Test func itIsAFixedArrayOfTheAskedCount() async throws {
        try await withServer { server in
            let defaults = try await server.client.send(Request<[Item]>.get("/json/items"))
            #expect(defaults.value.count == 20)
            #expect(defaults.headerFields[.contentType] == "application/json; charset=utf-8")
            #expect(defaults.value.map(\.id) == Array(1...20))
            #expect(
                defaults.value[0] == Item(id: 1, name: "Item 1", score: 0, isFeatured: true, tags: ["space", "even"])
            )

            let three = try await server.client.send(
                Request<[Item]>.get("/json/items", query: [URLQueryItem(name: "count", value: "3")])
            )
            #expect(three.value == Array(defaults.value.prefix(3)))
            let again = try await server.client.send(
                Request<[Item]>.get("/json/items", query: [URLQueryItem(name: "count", value: "3")])
            )
            #expect(again.body == three.body)

            let none = try await server.client.send(
                Request<[Item]>.get("/json/items", query: [URLQueryItem(name: "count", value: "0")])
            )
            #expect(none.value.isEmpty)
            let most = try await server.client.send(
                Request<[Item]>.get("/json/items", query: [URLQueryItem(name: "count", value: "1000")])
            )
            #expect(most.value.count == 1000)
        }
    }

    @Test(arguments: ["1001", "-1", "twenty"])
    func anOutOfRangeCountIsABadRequest(count: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/json/items", query: [URLQueryItem(name: "count", value: count)])
            )
            #expect(response.status == .badRequest)
        }
    }
}
