import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import OpenAPIRuntime
import SpacePhotosAPI
import SpacePhotosCore
import SpacePhotosServer
import Testing

/// The client generated from openapi.json (`SpacePhotosAPI`) against the real
/// example server: each of its operations, through `OpenAPITransport` on an
/// `HTTPClient` with the app's middleware, answers as the document says and
/// as the hand-written requests read it.
@Suite("Generated client (real server)", .timeLimit(.minutes(2)))
struct GeneratedClientIntegrationTests {
    /// The generated client on `client`, at the server's URL.
    func api(_ server: RunningServer, on client: HTTPClient) -> Client {
        Client(serverURL: server.baseURL, transport: OpenAPITransport(client: client))
    }

    @Test func theMemberWithATokenRefreshedOnTheWay() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let authAPI = AuthAPI(client: server.client)
            let tokens = SessionTokens(directory: directory.url, authAPI: authAPI)
            try await tokens.save(try await authAPI.grant(for: User.ID(rawValue: "astro"), with: "stardust-42"))
            // The stored ID token stops being valid, as an expired one would.
            try await tokens.replaceIDTokenForTesting(IDToken(rawValue: "v1.expired.token"))
            let client = HTTPClient(
                baseURL: server.baseURL,
                transport: URLSessionTransport(),
                middleware: [BearerAuthentication(provider: tokens)]
            )

            let member = try await api(server, on: client).me().ok.body.json

            #expect(member.id == "astro")
            #expect(member.nickname == "Astro")
            #expect(await tokens.refreshCount == 1)
            // The app's MemberAPI reads the same member into its model.
            let user = try await MemberAPI(client: client).me()
            #expect(user.nickname == member.nickname)
            #expect(PhotoDay.string(from: user.birthday) == member.birthday)

            // Without a token: the documented 401.
            guard case let .unauthorized(refusal) = try await api(server, on: server.client).me() else {
                Issue.record("Expected the documented 401")
                return
            }
            #expect(try refusal.body.json.error.code.isEmpty == false)
        }
    }

    @Test func daysAndPhotosAsThePhotoAPIReadsThem() async throws {
        try await withServer { server in
            let api = api(server, on: server.client)

            let days = try await api.photoDates(query: .init(count: 5, seed: 7)).ok.body.json

            #expect(days.count == 5)
            let handWritten = try await PhotoAPI(client: server.client).randomDates(count: 5, seed: 7)
            #expect(days == handWritten.map(PhotoDay.string(from:)))

            let photo = try await api.photo(query: .init(date: days[0])).ok.body.json
            #expect(photo.date == days[0])
            let model = try await PhotoAPI(client: server.client).photo(on: handWritten[0])
            #expect(model.title == photo.title)
            #expect(model.description == photo.explanation)
            #expect(model.url.absoluteString == photo.url)

            // Before the catalog began: the documented 404, a case rather than an error.
            guard case let .notFound(missing) = try await api.photo(query: .init(date: "1990-01-01")) else {
                Issue.record("Expected the documented 404")
                return
            }
            #expect(try missing.body.json.error.code == "not_found")
            // The same answer through PhotoAPI is the HTTPClientError a hand-written request throws.
            let error = try await #require(throws: HTTPClientError.self) {
                try await PhotoAPI(client: server.client).photo(on: #require(PhotoDay.date(from: "1990-01-01")))
            }
            #expect(error.status == .notFound)
            #expect(error.serverError?.code == "not_found")
        }
    }

    @Test func aFactAndItsDocumentedFailure() async throws {
        try await withServer { server in
            let api = api(server, on: server.client)

            let answer = try await api.fact(path: .init(number: 42)).ok.body.plainText
            let fact = try await String(collecting: answer, upTo: 4096)

            #expect(fact == "42 is the answer to the ultimate question of life, the universe, and everything.")
            let handWritten = try await server.client.send(Request<String>.get("/facts/42")).value
            #expect(fact == handWritten)

            // The server's test knob: the documented 503.
            guard case .serviceUnavailable = try await api.fact(path: .init(number: 42), query: .init(fail: "true"))
            else {
                Issue.record("Expected the documented 503")
                return
            }
        }
    }
}
