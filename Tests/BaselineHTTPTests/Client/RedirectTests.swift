import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Redirect policy", .timeLimit(.minutes(1)))
struct RedirectTests {
    let transport = StubTransport()

    func client(_ policy: RedirectPolicy = .follow()) -> HTTPClient {
        var configuration = HTTPClient.Configuration(baseURL: URL(string: "https://api.test")!)
        configuration.redirectPolicy = policy
        return HTTPClient(configuration: configuration, transport: transport)
    }

    func redirect(_ status: HTTPResponse.Status = .found, to location: String) -> StubResponse {
        .status(status, headerFields: [.location: location])
    }

    @Test func followsAChainOfRedirects() async throws {
        transport.on(.get, "/a", respond: redirect(to: "/b"))
        transport.on(.get, "/b", respond: redirect(.movedPermanently, to: "https://api.test/c"))
        transport.on(.get, "/c", respond: .text("done"))
        let response = try await client().send(.get("/a") as Request<String>)
        #expect(response.value == "done")
        #expect(transport.requests.map(\.path) == ["/a", "/b", "/c"])
    }

    @Test func stopsAfterTheMaximum() async throws {
        transport.on(.get, "/loop", respond: redirect(to: "/loop"))
        await #expect {
            try await client(.follow(maximum: 3)).send(.get("/loop") as Request<Void>)
        } throws: { error in
            guard case .tooManyRedirects(3) = error as? HTTPClientError else { return false }
            return true
        }
        #expect(transport.requests.count == 4)
    }

    @Test func neverReturnsTheRedirectItself() async throws {
        transport.on(.get, "/a", respond: redirect(to: "/b"))
        let response = try await client(.never).send(Request<Void>.get("/a").accepting(200..<400))
        #expect(response.status == .found)
        #expect(transport.requests.count == 1)
    }

    @Test func aCustomPolicyDecidesEachHop() async throws {
        transport.on(.get, "/a", respond: redirect(to: "https://elsewhere.test/b"))
        let sameHost = RedirectPolicy.custom { _, next in next.authority == "api.test" ? next : nil }
        let response = try await client(sameHost).send(Request<Void>.get("/a").accepting(200..<400))
        #expect(response.status == .found)
    }

    @Test func dropsCredentialsOnACrossOriginRedirect() async throws {
        transport.on(.get, "/a", respond: redirect(.temporaryRedirect, to: "https://other.test/b"))
        transport.on(.get, "/b", respond: .text("ok"))
        let request = Request<String>.get("/a").header(.authorization, "Bearer secret").header(.cookie, "session=1")
        _ = try await client().send(request)
        let hops = transport.requests
        #expect(hops[0].headerFields[.authorization] == "Bearer secret")
        #expect(hops[1].head.authority == "other.test")
        #expect(hops[1].headerFields[.authorization] == nil)
        #expect(hops[1].headerFields[.cookie] == nil)
    }

    @Test func keepsCredentialsOnTheSameOrigin() async throws {
        transport.on(.get, "/a", respond: redirect(to: "/b"))
        transport.on(.get, "/b", respond: .text("ok"))
        _ = try await client().send(Request<String>.get("/a").header(.authorization, "Bearer secret"))
        #expect(transport.requests[1].headerFields[.authorization] == "Bearer secret")
    }

    @Test func seeOtherTurnsAPostIntoAGetWithoutBody() async throws {
        transport.on(.post, "/form", respond: redirect(.seeOther, to: "/result"))
        transport.on(.get, "/result", respond: .text("ok"))
        _ = try await client().send(Request<String>.post("/form", body: .text("a=1")))
        let followUp = transport.requests[1]
        #expect(followUp.method == .get && followUp.body == nil && followUp.headerFields[.contentType] == nil)
    }

    @Test func temporaryRedirectResendsTheBody() async throws {
        transport.on(.put, "/old", respond: redirect(.temporaryRedirect, to: "/new"))
        transport.on(.put, "/new", respond: .status(.noContent))
        _ = try await client().send(Request<Void>.put("/old", body: .text("payload")))
        #expect(transport.requests[1].method == .put)
        #expect(transport.requests[1].body == Data("payload".utf8))
    }
}
