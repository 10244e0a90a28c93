// Choosing a transport: URLSession by default, a configured session, a stub in tests.

// snippet.hide
import BaselineHTTP
import BaselineTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let apiURL = URL(string: "https://api.example.com")!

struct Member: Codable, Sendable {
    var id: String
}

// snippet.show
// snippet.default
// Without a transport, every client shares `URLSessionTransport.shared`: one session, one connection pool.
let client = HTTPClient(baseURL: apiURL)
// snippet.end

// snippet.configured
// A session of your own: start from the transport's defaults (ephemeral, URL cache off).
let configuration = URLSessionTransport.defaultConfiguration()
configuration.httpMaximumConnectionsPerHost = 16
configuration.timeoutIntervalForResource = 300
let transport = URLSessionTransport(configuration: configuration)
let uploads = HTTPClient(baseURL: apiURL, transport: transport)
// snippet.end

// snippet.stub
@Test func theMemberIsDecoded() async throws {
    let transport = StubTransport()
    transport.on(.get, "/members/me", respond: try .json(Member(id: "astro")))
    let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!, transport: transport)

    let member = try await client.send(Request<Member>.get("/members/me")).value

    #expect(member.id == "astro")
    #expect(transport.requests.map(\.path) == ["/members/me"])
}
// snippet.end

// snippet.hide
_ = client
_ = uploads
