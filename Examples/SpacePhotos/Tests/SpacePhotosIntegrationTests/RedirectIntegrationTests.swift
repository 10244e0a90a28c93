import BaselineHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("Redirects and GET /echo/headers", .timeLimit(.minutes(2)))
struct RedirectIntegrationTests {
    struct Arrived: Decodable, Equatable {
        var redirected: Bool
    }

    @Test func aFollowingClientReachesTheEndOfTheChain() async throws {
        try await withServer { server in
            let arrived = try await server.client.send(Request<Arrived>.get("/redirect/5")).value
            #expect(arrived.redirected)
        }
    }

    @Test func eachHopRedirectsToTheNext() async throws {
        try await withServer { server in
            let client = server.nonRedirectingClient
            var path = "/redirect/3"
            var hops = 0
            while true {
                let response = try await client.answer(.get(path))
                guard response.status == .found else {
                    #expect(response.status == .ok)
                    #expect(try response.decoded(as: Arrived.self).redirected)
                    break
                }
                path = try #require(response.headerFields[.location])
                hops += 1
                #expect(path == "/redirect/\(3 - hops)")
            }
            #expect(hops == 3)

            // The status is kept along the chain.
            let permanent = try await client.answer(
                .get("/redirect/2", query: [URLQueryItem(name: "status", value: "308")])
            )
            #expect(permanent.status.code == 308)
            #expect(permanent.headerFields[.location] == "/redirect/1?status=308")
        }
    }

    @Test func redirectToSendsTheClientWhereItSays() async throws {
        try await withServer { server in
            let client = server.nonRedirectingClient
            // Another origin (localhost, not 127.0.0.1): the case where a
            // client must drop Authorization.
            let target = "http://localhost:\(server.port)/echo/headers"
            let response = try await client.answer(
                .get(
                    "/redirect-to",
                    query: [
                        URLQueryItem(name: "url", value: target), URLQueryItem(name: "status", value: "307"),
                    ]
                )
            )
            #expect(response.status == .temporaryRedirect)
            #expect(response.headerFields[.location] == target)

            let path = try await client.answer(
                .get("/redirect-to", query: [URLQueryItem(name: "url", value: "/echo/headers")])
            )
            #expect(path.status == .found)
            #expect(path.headerFields[.location] == "/echo/headers")
        }
    }

    @Test(arguments: [
        "javascript:alert(1)", "//evil.example/x", "ftp://example.com/", "http://", "/a b", "/a\r\nSet-Cookie: x=1", "",
    ])
    func redirectToRefusesOtherTargets(url: String) async throws {
        try await withServer { server in
            let response = try await server.nonRedirectingClient.answer(
                .get("/redirect-to", query: [URLQueryItem(name: "url", value: url)])
            )
            #expect(response.status == .badRequest)
            #expect(response.headerFields[.location] == nil)
        }
    }

    @Test(
        arguments: [
            ("/redirect/51", nil), ("/redirect/-1", nil), ("/redirect/x", nil),
            ("/redirect/1", "200"), ("/redirect/1", "304"), ("/redirect-to", "301"),
        ] as [(String, String?)]
    )
    func badRedirectParametersAreBadRequests(path: String, status: String?) async throws {
        try await withServer { server in
            let query = status.map { [URLQueryItem(name: "status", value: $0)] } ?? []
            let response = try await server.nonRedirectingClient.answer(.get(path, query: query))
            #expect(response.status == .badRequest)
        }
    }

    @Test func echoShowsTheRequestHeadersAlsoAfterARedirect() async throws {
        try await withServer { server in
            let probe = try #require(HTTPField.Name("X-Probe"))
            let direct = try await server.client.send(
                Request<[String: String]>.get(
                    "/echo/headers",
                    headerFields: [probe: "one", .authorization: "Bearer token"]
                )
            ).value
            #expect(direct["x-probe"] == "one")
            #expect(direct["authorization"] == "Bearer token")

            // A same-origin redirect (to a path) keeps the request's fields.
            let redirected = try await server.client.send(
                Request<[String: String]>.get(
                    "/redirect-to",
                    query: [URLQueryItem(name: "url", value: "/echo/headers")],
                    headerFields: [probe: "two"]
                )
            ).value
            #expect(redirected["x-probe"] == "two")
        }
    }
}
