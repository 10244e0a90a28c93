import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

/// `PhotoAPI.photo(on:)` and `MemberAPI.me()` go through the client generated
/// from openapi.json. What they return, and what they throw, must be what the
/// hand-written requests they replaced returned and threw: the features match
/// on those errors (a 401 ends the session, an unreachable server is offline).
@Suite("Photo and member APIs through the generated client", .timeLimit(.minutes(2)))
struct GeneratedClientTests {
    static let day = PhotoDay.date(from: "2020-07-04")!
    static let photoJSON =
        #"{"title":"Orion","explanation":"A nebula.","date":"2020-07-04","url":"http://photos.test/images/nebula-03.jpg"}"#
    static let memberJSON = #"{"id":"astro","nickname":"Astro","birthday":"1990-02-01"}"#

    func client(_ transport: StubTransport, middleware: [any HTTPMiddleware] = []) -> HTTPClient {
        HTTPClient(baseURL: URL(string: "http://photos.test")!, transport: transport, middleware: middleware)
    }

    /// What `call` throws, and what a hand-written `Request` for the same
    /// path on the same stubbed answer throws.
    func errors(
        _ transport: StubTransport,
        path: String,
        _ call: @Sendable (HTTPClient) async throws -> some Sendable
    ) async throws -> (generated: HTTPClientError, handWritten: HTTPClientError) {
        let client = client(transport)
        let generated = try await #require(throws: HTTPClientError.self) { try await call(client) }
        let handWritten = try await #require(throws: HTTPClientError.self) {
            try await client.send(Request<Data>.get(path))
        }
        return (generated, handWritten)
    }

    // MARK: GET /photos

    @Test func aPhotoIsTheModelTheDocumentDescribes() async throws {
        let transport = StubTransport()
        transport.on(.get, "/photos", respond: .text(Self.photoJSON, contentType: "application/json"))

        let photo = try await PhotoAPI(client: client(transport)).photo(on: Self.day)

        let url = try #require(URL(string: "http://photos.test/images/nebula-03.jpg"))
        #expect(photo == SpacePhoto(title: "Orion", description: "A nebula.", date: Self.day, url: url))
        #expect(transport.requests.map(\.query) == [[URLQueryItem(name: "date", value: "2020-07-04")]])
    }

    @Test func theServerOptionsAreTheTypedQuery() async throws {
        let transport = StubTransport()
        transport.on(.get, "/photos", respond: .text(Self.photoJSON, contentType: "application/json"))
        let options = [URLQueryItem(name: "delay", value: "3000"), URLQueryItem(name: "fail", value: "503")]

        _ = try await PhotoAPI(client: client(transport)).photo(on: Self.day, serverOptions: options)

        let query = transport.requests.first?.query ?? []
        #expect(query == [URLQueryItem(name: "date", value: "2020-07-04")] + options)
    }

    @Test func anOptionTheEndpointDoesNotHaveIsRefusedBeforeSending() async throws {
        let transport = StubTransport()
        let api = PhotoAPI(client: client(transport))

        let error = try await #require(throws: HTTPClientError.self) {
            try await api.photo(on: Self.day, serverOptions: [URLQueryItem(name: "colour", value: "red")])
        }
        #expect(error.description == #"Could not make the request: GET /photos has no server option "colour""#)
        let notANumber = try await #require(throws: HTTPClientError.self) {
            try await api.photo(on: Self.day, serverOptions: [URLQueryItem(name: "delay", value: "soon")])
        }
        #expect(
            notANumber.description
                == #"Could not make the request: the server option delay takes a whole number, not "soon""#
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func aDayWithoutAPhotoIsThe404ItWasBefore() async throws {
        let transport = StubTransport()
        let document = #"{"error":{"code":"not_found","message":"No photo for 1990-01-01"}}"#
        transport.on(.get, "/photos", respond: .text(document, status: .notFound, contentType: "application/json"))

        let (generated, handWritten) = try await errors(transport, path: "/photos") {
            try await PhotoAPI(client: $0).photo(on: Self.day)
        }

        #expect(generated.status == .notFound)
        #expect(generated.serverMessage == "No photo for 1990-01-01")
        #expect(ErrorMessage.line(for: generated) == "404 Not Found: No photo for 1990-01-01")
        #expect(generated.description == handWritten.description)
        #expect(generated.responseHead?.headerFields[.contentType] == "application/json")
    }

    @Test func anUndocumentedStatusKeepsItsHeadAndBody() async throws {
        let transport = StubTransport()
        transport.on(
            .get,
            "/photos",
            respond: StubResponse(
                status: .serviceUnavailable,
                headerFields: [.retryAfter: "5", .contentType: "text/html"],
                body: Data("<html>busy</html>".utf8)
            )
        )

        let (generated, handWritten) = try await errors(transport, path: "/photos") {
            try await PhotoAPI(client: $0).photo(on: Self.day)
        }

        #expect(generated.status == .serviceUnavailable)
        #expect(generated.responseBody == Data("<html>busy</html>".utf8))
        #expect(generated.responseHead?.headerFields[.retryAfter] == "5")
        #expect(generated.description == handWritten.description)
        #expect(generated.description == "The server answered 503 Service Unavailable")
    }

    @Test func aDateThatIsNoDaySaysWhichFieldAsTheModelsDecoderDid() async throws {
        let transport = StubTransport()
        let json = Self.photoJSON.replacingOccurrences(of: "2020-07-04", with: "2020-02-31")
        transport.on(.get, "/photos", respond: .text(json, contentType: "application/json"))
        let client = client(transport)

        let generated = try await #require(throws: HTTPClientError.self) {
            try await PhotoAPI(client: client).photo(on: Self.day)
        }
        let handWritten = try await #require(throws: HTTPClientError.self) {
            try await client.send(Request<SpacePhoto>.get("/photos"))
        }

        #expect(generated.description == handWritten.description)
        #expect(
            generated.description
                == #"The response's field "date" is invalid (Expected a date as yyyy-MM-dd, got "2020-02-31")"#
        )
    }

    @Test func aBodyThatIsNotTheDocumentsIsADecodingFailure() async throws {
        let transport = StubTransport()
        transport.on(.get, "/photos", respond: .text(#"{"title":"Orion"}"#, contentType: "application/json"))

        let error = try await #require(throws: HTTPClientError.self) {
            try await PhotoAPI(client: client(transport)).photo(on: Self.day)
        }

        guard case let .decodingFailed(underlying, _) = error, underlying is DecodingError else {
            Issue.record("Expected a decoding failure, got \(error)")
            return
        }
        #expect(error.description == #"The response has no field "explanation""#)
    }

    // MARK: GET /members/me

    @Test func aMemberIsTheModelTheDocumentDescribes() async throws {
        let transport = StubTransport()
        transport.on(.get, "/members/me", respond: .text(Self.memberJSON, contentType: "application/json"))

        let member = try await MemberAPI(client: client(transport)).me()

        let birthday = try #require(PhotoDay.date(from: "1990-02-01"))
        #expect(member == User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: birthday))
    }

    @Test func a401RefreshesTheTokenOnceThenTheMemberArrives() async throws {
        let transport = StubTransport()
        transport.on(.get, "/members/me") { request in
            guard request.headerFields[.authorization] == "Bearer fresh" else { return .status(.unauthorized) }
            return .text(Self.memberJSON, contentType: "application/json")
        }
        let tokens = Tokens("stale")
        let api = MemberAPI(client: client(transport, middleware: [BearerAuthentication(provider: tokens)]))

        let calling = Task { try await api.me() }
        let refresh = try await tokens.refresh.nextCall()
        #expect(refresh.arguments == "stale")
        refresh.resume(returning: "fresh")
        let member = try await calling.value

        #expect(member.id.rawValue == "astro")
        #expect(transport.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh"])
        #expect(tokens.refresh.callCount == 1)
    }

    @Test func a401AfterTheRefreshEndsTheSessionAsBefore() async throws {
        let transport = StubTransport()
        let refusal = #"{"error":{"code":"invalid_token","message":"The token has expired."}}"#
        transport.on(
            .get,
            "/members/me",
            respond: StubResponse(
                status: .unauthorized,
                headerFields: [.contentType: "application/json", .wwwAuthenticate: "Bearer"],
                body: Data(refusal.utf8)
            )
        )
        let tokens = Tokens("stale")
        let api = MemberAPI(client: client(transport, middleware: [BearerAuthentication(provider: tokens)]))
        let forgotten = LockedValue(false)

        let checking = Task {
            await SessionCheck.checking(
                restore: { try await api.me() },
                forget: { forgotten.withLock { $0 = true } }
            )
        }
        try await tokens.refresh.nextCall().resume(returning: "also-refused")
        #expect(await checking.value == .ended)
        #expect(forgotten.current)

        let error = try await #require(throws: HTTPClientError.self) {
            try await MemberAPI(client: client(transport)).me()
        }
        #expect(error.status == .unauthorized)
        #expect(error.responseHead?.headerFields[.wwwAuthenticate] == "Bearer")
        #expect(error.serverMessage == "The token has expired.")
    }

    @Test func anUnreachableServerIsOfflineAsBefore() async throws {
        let transport = StubTransport()
        transport.on(.get, "/members/me") { _ in throw URLError(.cannotConnectToHost) }
        let api = MemberAPI(client: client(transport))

        let check = await SessionCheck.checking(restore: { try await api.me() }, forget: {})

        guard case .offline = check else {
            Issue.record("Expected offline, got \(check)")
            return
        }
        let error = try await #require(throws: HTTPClientError.self) { try await api.me() }
        guard case .transport = error else {
            Issue.record("Expected the transport's error, got \(error)")
            return
        }
    }

    @Test func cancellingTheCallIsACancellationError() async throws {
        let transport = StubTransport()
        let held = transport.hold(.get, "/members/me")
        let api = MemberAPI(client: client(transport))

        let calling = Task { try await api.me() }
        let call = try await held.nextCall()
        calling.cancel()

        await #expect(throws: CancellationError.self) { try await calling.value }
        #expect(call.isCancelled)
    }
}

/// Hands out a token, and replaces a rejected one when the test says,
/// through `refresh` (called with the rejected token, returns the new one).
private actor Tokens: AccessTokenProvider {
    private var token: String
    let refresh = ControllableCall<String, String>()

    init(_ token: String) {
        self.token = token
    }

    func accessToken() -> String? { token }

    func refreshAccessToken(rejected: String) async throws -> String {
        token = try await refresh(rejected)
        return token
    }
}
