import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPClient", .timeLimit(.minutes(1)))
struct HTTPClientTests {
    struct Member: Codable, Equatable, Sendable {
        var id: String
        var nickname: String
    }

    let transport = StubTransport()
    var client: HTTPClient {
        HTTPClient(baseURL: URL(string: "https://api.test/v1")!, transport: transport)
    }

    // MARK: Building requests

    @Test func appendsThePathAndQueryToTheBaseURL() async throws {
        transport.on(.get, "/v1/photos", respond: .text("[]"))
        _ = try await client.send(
            Request<Data>.get("/photos", query: [URLQueryItem(name: "date", value: "2024-01-02")])
        )
        let request = try #require(transport.requests.first)
        #expect(request.head.url?.absoluteString == "https://api.test/v1/photos?date=2024-01-02")
        #expect(request.query == [URLQueryItem(name: "date", value: "2024-01-02")])
    }

    @Test func usesAnAbsoluteURLAsItIs() async throws {
        transport.on(.get, "/elsewhere", respond: .text("ok"))
        let text = try await client.send(Request<String>.get("https://other.test/elsewhere")).value
        #expect(text == "ok")
        #expect(transport.requests.first?.head.authority == "other.test")
    }

    @Test func encodesJSONBodiesAndSetsTheHeaders() async throws {
        transport.on(.post, "/v1/members", respond: .status(.created))
        try await client.send(Request<Void>.post("/members", body: .json(Member(id: "a", nickname: "A"))))
        let request = try #require(transport.requests.first)
        #expect(try request.decodeBody(Member.self) == Member(id: "a", nickname: "A"))
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(request.headerFields[.accept] == "application/json")
    }

    @Test func requestHeadersOverrideTheDefaults() async throws {
        transport.on(.get, "/v1/x", respond: .text("x"))
        _ = try await client.send(Request<Data>.get("/x").header(.accept, "text/plain"))
        #expect(transport.requests.first?.headerFields[values: .accept] == ["text/plain"])
    }

    // MARK: Responses

    @Test func decodesJSONAndKeepsTheHead() async throws {
        transport.on(
            .get,
            "/v1/members/me",
            respond: try .json(Member(id: "a", nickname: "A"), headerFields: [.eTag: "\"1\""])
        )
        let response = try await client.send(Request<Member>.get("/members/me"))
        #expect(response.value == Member(id: "a", nickname: "A"))
        #expect(response.status == .ok)
        #expect(response.headerFields[.eTag] == "\"1\"")
        #expect(!response.body.isEmpty)
    }

    @Test func anUnacceptableStatusKeepsStatusHeadersAndBody() async throws {
        transport.on(
            .post,
            "/v1/auth/login",
            respond: StubResponse(
                status: .tooManyRequests,
                headerFields: [.retryAfter: "30"],
                body: Data(#"{"error":"slow down"}"#.utf8)
            )
        )
        await #expect {
            try await client.send(Request<Void>.post("/auth/login"))
        } throws: { error in
            guard let error = error as? HTTPClientError else { return false }
            return error.status == .tooManyRequests
                && error.responseHead?.headerFields[.retryAfter] == "30"
                && error.responseBody == Data(#"{"error":"slow down"}"#.utf8)
        }
    }

    @Test func aRequestCanWidenTheAcceptableStatuses() async throws {
        transport.on(.get, "/v1/maybe", respond: .status(.notFound))
        var request = Request<Void>.get("/maybe")
        request.acceptableStatusCodes = 200..<500
        let response = try await client.send(request)
        #expect(response.status == .notFound)
    }

    @Test func aDecodingFailureCarriesAnExcerptOfTheBody() async throws {
        transport.on(.get, "/v1/members/me", respond: .text(#"{"id": 1}"#, contentType: "application/json"))
        await #expect {
            try await client.send(Request<Member>.get("/members/me"))
        } throws: { error in
            guard case let .decodingFailed(underlying, excerpt) = error as? HTTPClientError else { return false }
            return underlying is DecodingError && excerpt == #"{"id": 1}"#
        }
    }

    @Test func malformedJSONIsADecodingFailure() async throws {
        transport.on(.get, "/v1/members/me", respond: .text("{\"id\": \"a\", \"nick", contentType: "application/json"))
        await #expect {
            try await client.send(Request<Member>.get("/members/me"))
        } throws: { error in
            if case .decodingFailed = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func rawBodiesComeBackAsDataOrText() async throws {
        transport.on(.get, "/v1/raw", respond: .text("héllo"))
        #expect(try await client.send(Request<Data>.get("/raw")).value == Data("héllo".utf8))
        #expect(try await client.send(Request<String>.get("/raw")).value == "héllo")
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        transport.on(.get, "/v1/big", respond: .text(String(repeating: "x", count: 2_000)))
        let small = HTTPClient(
            configuration: .init(baseURL: URL(string: "https://api.test/v1")!, maximumResponseSize: 1_000),
            transport: transport
        )
        await #expect {
            try await small.send(Request<Data>.get("/big"))
        } throws: { error in
            if case .responseTooLarge(limit: 1_000) = error as? HTTPClientError { true } else { false }
        }
    }

    // MARK: Failures and cancellation

    @Test func transportFailuresAreWrapped() async throws {
        transport.on(.get, "/v1/down") { _ in throw URLError(.cannotConnectToHost) }
        await #expect {
            try await client.send(Request<Void>.get("/down"))
        } throws: { error in
            guard case let .transport(underlying) = error as? HTTPClientError else { return false }
            return (underlying as? URLError)?.code == .cannotConnectToHost
        }
    }

    @Test func cancellationWhileInFlightThrowsCancellationError() async throws {
        let held = transport.hold(.get, "/v1/slow")
        let client = self.client
        let call = Task { try await client.send(Request<Data>.get("/slow")) }
        let invocation = try await held.nextCall()
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(invocation.isCancelled)
        #expect(invocation.resume(returning: .text("too late")) == false)
    }

    @Test func anUnroutedRequestFailsLoudly() async throws {
        await #expect {
            try await client.send(Request<Void>.get("/nowhere"))
        } throws: { error in
            guard case let .transport(underlying) = error as? HTTPClientError else { return false }
            return underlying as? StubTransportError == .noRoute(method: .get, path: "/v1/nowhere")
        }
    }

    // MARK: Found in review

    /// A caller that is generic over the response type still gets raw text.
    private func load<T: Decodable & Sendable>(_ request: Request<T>, with client: HTTPClient) async throws -> T {
        try await client.send(request).value
    }

    @Test func genericCallersGetRawTextAndData() async throws {
        transport.on(.get, "/v1/fact", respond: .text("7 is prime"))
        #expect(try await load(Request<String>.get("/fact"), with: client) == "7 is prime")
        #expect(try await load(Request<Data>.get("/fact"), with: client) == Data("7 is prime".utf8))
    }

    @Test func onlyAPathWithSchemeAndHostIsAbsolute() async throws {
        transport.on(.get, "/v1/a://b", respond: .text("relative"))
        #expect(try await client.send(Request<String>.get("/a://b")).value == "relative")
        #expect(transport.requests.last?.head.authority == "api.test")
    }

    @Test func aQueryInThePathIsRefused() async throws {
        await #expect {
            try await client.send(Request<Void>.get("/facts/7?delay=500"))
        } throws: { error in
            if case .invalidRequest = error as? HTTPClientError { true } else { false }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func theBodysContentTypeBeatsAClientDefault() async throws {
        transport.on(.post, "/v1/upload", respond: .status(.created))
        let client = HTTPClient(
            configuration: .init(
                baseURL: URL(string: "https://api.test/v1")!,
                headerFields: [.contentType: "application/json"]
            ),
            transport: transport
        )
        try await client.send(Request<Void>.post("/upload", body: .data(Data([0x89, 0x50]), contentType: "image/png")))
        #expect(transport.requests.first?.headerFields[values: .contentType] == ["image/png"])
    }
}
