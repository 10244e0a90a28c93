// Bearer authentication with a token that refreshes itself, and its test.

// snippet.hide
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

struct Member: Decodable, Sendable {
    var id: String
}

// snippet.show
// snippet.provider
/// The session's tokens: the access token sent with requests, and the
/// refresh token that buys a new one.
actor SessionTokens: AccessTokenProvider {
    private struct Grant: Decodable {
        var accessToken: String
        var refreshToken: String
    }

    private struct RefreshBody: Encodable {
        var refreshToken: String
    }

    private var current: String?
    private var refreshToken: String?
    /// A client *without* the authentication middleware: refreshing must not
    /// itself wait for a refresh.
    private let authClient: HTTPClient

    init(authClient: HTTPClient, accessToken: String?, refreshToken: String?) {
        self.authClient = authClient
        self.current = accessToken
        self.refreshToken = refreshToken
    }

    func accessToken() -> String? {
        current
    }

    func refreshAccessToken(rejected: String) async throws -> String {
        guard let refreshToken else { throw URLError(.userAuthenticationRequired) }
        let grant = try await authClient.send(
            Request<Grant>.post("/auth/refresh", body: .json(RefreshBody(refreshToken: refreshToken)))
        ).value
        // Keep both before returning: requests that start from now on use the new token at once.
        current = grant.accessToken
        self.refreshToken = grant.refreshToken
        return grant.accessToken
    }
}
// snippet.end

// snippet.client
let apiURL = URL(string: "https://api.example.com")!
let tokens = SessionTokens(authClient: HTTPClient(baseURL: apiURL), accessToken: nil, refreshToken: nil)
let client = HTTPClient(
    baseURL: apiURL,
    middleware: [
        RetryMiddleware(),
        // Only this API's requests carry the token, whatever else the client fetches.
        BearerAuthentication(provider: tokens) { $0.authority == "api.example.com" },
    ]
)
// snippet.end

// snippet.test
@Test func anExpiredTokenIsRefreshedOnceAndTheRequestRetried() async throws {
    let transport = StubTransport()
    // The old token gets a 401; the refreshed one gets the member.
    transport.on(.get, "/members/me") { request in
        request.headerFields[.authorization] == "Bearer fresh"
            ? try .json(["id": "astro"])
            : .status(.unauthorized)
    }
    transport.on(.post, "/auth/refresh", respond: try .json(["accessToken": "fresh", "refreshToken": "r2"]))

    let baseURL = URL(string: "https://api.example.com")!
    let tokens = SessionTokens(
        authClient: HTTPClient(baseURL: baseURL, transport: transport),
        accessToken: "expired",
        refreshToken: "r1"
    )
    let client = HTTPClient(
        baseURL: baseURL,
        transport: transport,
        middleware: [BearerAuthentication(provider: tokens)]
    )

    let member = try await client.send(Request<Member>.get("/members/me")).value
    #expect(member.id == "astro")
    #expect(transport.requests.map(\.path) == ["/members/me", "/auth/refresh", "/members/me"])
}
// snippet.end

// snippet.hide
_ = client
