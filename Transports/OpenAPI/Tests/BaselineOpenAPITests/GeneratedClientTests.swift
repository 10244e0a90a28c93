import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("OpenAPITransport: a generated client over HTTPClient", .timeLimit(.minutes(1)))
struct GeneratedClientTests {
    @Test func aDocumentedSuccessDecodes() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: try .json(lamp))
        let api = makeAPI(on: transport)

        let output = try await api.getItem(path: .init(id: "42"))

        #expect(try output.ok.body.json == lamp)
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.head.scheme == "https")
        #expect(request.head.authority == "api.example.test")
        #expect(request.head.path == "/v1/items/42")
    }

    @Test func aDocumentedErrorStatusIsACaseNotAnError() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/9", respond: .text("no such item", status: .notFound))
        let api = makeAPI(on: transport)

        let output = try await api.getItem(path: .init(id: "9"))

        guard case .notFound = output else {
            Issue.record("Expected .notFound, got \(output)")
            return
        }
    }

    @Test func anUndocumentedStatusIsReturnedWithItsBody() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: .text("storage offline", status: .internalServerError))
        let api = makeAPI(on: transport)

        let output = try await api.getItem(path: .init(id: "42"))

        guard case let .undocumented(statusCode, payload) = output else {
            Issue.record("Expected .undocumented, got \(output)")
            return
        }
        #expect(statusCode == 500)
        let body = try #require(payload.body)
        #expect(try await String(collecting: body, upTo: 1024) == "storage offline")
    }

    @Test func theClientsDefaultHeaderFieldsGoWhereTheRequestSetsNone() async throws {
        let transport = StubTransport()
        transport.on(.delete, "/v1/items/42", respond: .status(.noContent))
        transport.on(.get, "/v1/items/42", respond: try .json(lamp))
        transport.on(
            .get,
            "/v1/items/42/photo",
            respond: StubResponse(headerFields: [.contentType: "application/octet-stream"], body: Data([1, 2, 3]))
        )
        let configuration = BaselineHTTP.HTTPClient.Configuration(
            baseURL: URL(string: "https://unused.test")!,
            headerFields: [.accept: "application/json", .userAgent: "Tests/1.0"]
        )
        let api = makeAPI(on: transport, configuration: configuration)

        _ = try await api.deleteItem(path: .init(id: "42"))
        _ = try await api.getItem(path: .init(id: "42"))
        _ = try await api.downloadPhoto(path: .init(id: "42"))

        let fields = transport.requests.map(\.headerFields)
        try #require(fields.count == 3)
        // The operation documents no content: the client's Accept goes.
        #expect(fields[0][values: .accept] == ["application/json"])
        // The generated code's Accept replaces the client's, not added to it.
        #expect(fields[1][values: .accept] == ["application/json"])
        #expect(fields[2][values: .accept] == ["application/octet-stream"])
        for field in fields {
            #expect(field[values: .acceptEncoding] == ["gzip, deflate"])
            #expect(field[.userAgent] == "Tests/1.0")
        }
    }

    @Test func aRequestBodyGoesWithTheGeneratedContentType() async throws {
        let transport = StubTransport()
        transport.on(.post, "/v1/items", respond: try .json(lamp, status: .created))
        let api = makeAPI(on: transport)

        let output = try await api.createItem(body: .json(.init(name: "Lamp", tags: ["light"])))

        #expect(try output.created.body.json == lamp)
        let request = try #require(transport.requests.first)
        #expect(request.headerFields[.contentType] == "application/json; charset=utf-8")
        #expect(try request.decodeBody(Components.Schemas.NewItem.self) == .init(name: "Lamp", tags: ["light"]))
    }

    @Test func queryParametersReachTheTransport() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items", respond: try .json([lamp]))
        let api = makeAPI(on: transport)

        let output = try await api.listItems(query: .init(limit: 5, tag: "desk & floor"))

        #expect(try output.ok.body.json == [lamp])
        let request = try #require(transport.requests.first)
        #expect(request.path == "/v1/items")
        #expect(
            request.query == [
                URLQueryItem(name: "limit", value: "5"), URLQueryItem(name: "tag", value: "desk & floor"),
            ]
        )
    }

    @Test(arguments: [
        ("https://api.example.test/v1", "/v1/items/42"),
        ("https://api.example.test/v1/", "/v1/items/42"),
        ("https://api.example.test/api/v2", "/api/v2/items/42"),
        ("https://api.example.test", "/items/42"),
    ])
    func theServerURLsPathPrefixIsKept(serverURL: String, path: String) async throws {
        let transport = StubTransport()
        transport.on(.get, path, respond: try .json(lamp))
        let api = makeAPI(on: transport, serverURL: URL(string: serverURL)!)

        let output = try await api.getItem(path: .init(id: "42"))

        #expect(try output.ok.body.json == lamp)
        #expect(transport.requests.map(\.path) == [path])
    }

    @Test func aServerURLWithoutAHostFailsClearly() async throws {
        let transport = StubTransport()
        // The generated client's default server URL is `/`.
        let api = makeAPI(on: transport, serverURL: URL(string: "/")!)

        let error = await #expect(throws: ClientError.self) {
            _ = try await api.getItem(path: .init(id: "42"))
        }

        guard case .invalidRequest = underlying(error!) as? HTTPClientError else {
            Issue.record("Expected HTTPClientError.invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aTransportFailureIsAnHTTPClientErrorUnderTheClientError() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42") { _ in throw URLError(.notConnectedToInternet) }
        let api = makeAPI(on: transport)

        let error = await #expect(throws: ClientError.self) {
            _ = try await api.getItem(path: .init(id: "42"))
        }

        guard case let .transport(cause) = underlying(error!) as? HTTPClientError else {
            Issue.record("Expected HTTPClientError.transport, got \(String(describing: error))")
            return
        }
        #expect((cause as? URLError)?.code == .notConnectedToInternet)
    }

    @Test func aJSONBodyOverTheClientsLimitFails() async throws {
        let transport = StubTransport()
        transport.on(
            .get,
            "/v1/items/42",
            respond: try .json(Components.Schemas.Item(id: "42", name: String(repeating: "x", count: 100)))
        )
        let api = makeAPI(on: transport, configuration: .init(baseURL: apiURL, maximumResponseSize: 64))

        let error = await #expect(throws: ClientError.self) {
            _ = try await api.getItem(path: .init(id: "42"))
        }

        guard case .responseTooLarge(limit: 64) = underlying(error!) as? HTTPClientError else {
            Issue.record("Expected HTTPClientError.responseTooLarge, got \(String(describing: error))")
            return
        }
    }

    @Test func aBinaryBodyIsNotHeldToTheClientsLimit() async throws {
        let transport = StubTransport()
        let photo = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })
        transport.on(
            .get,
            "/v1/items/42/photo",
            respond: StubResponse(headerFields: [.contentType: "application/octet-stream"], body: photo)
        )
        let api = makeAPI(on: transport, configuration: .init(baseURL: apiURL, maximumResponseSize: 64))

        let output = try await api.downloadPhoto(path: .init(id: "42"))

        #expect(try await Data(collecting: output.ok.body.binary, upTo: 4096) == photo)
    }

    @Test func aHeadResponseHasNoBody() async throws {
        let transport = StubTransport()
        transport.on(.head, "/v1/items/42", respond: StubResponse(headerFields: [.contentLength: "120"]))
        let http = BaselineHTTP.HTTPClient(baseURL: apiURL, transport: transport)

        let (response, body) = try await OpenAPITransport(client: http).send(
            HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/items/42"),
            body: nil,
            baseURL: apiURL,
            operationID: "headItem"
        )

        #expect(response.status == .ok)
        #expect(response.headerFields[.contentLength] == "120")
        #expect(body == nil)
    }
}
