import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("withHTTPClientErrors: a generated client's failures as HTTPClientError", .timeLimit(.minutes(1)))
struct HTTPClientErrorsTests {
    /// What a caller of `withHTTPClientErrors` may throw itself.
    struct NoSuchItem: Error {}

    @Test func theAnswerAskedForComesBack() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: try .json(lamp))
        let api = makeAPI(on: transport)

        let item = try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }

        #expect(item == lamp)
    }

    @Test func aDocumentedErrorStatusTheCallerDidNotHandleIsUnacceptableStatusWithItsBody() async throws {
        let transport = StubTransport()
        // The 404 is documented without content: the generated code leaves the body unread.
        transport.on(.get, "/v1/items/9", respond: .text("no such item", status: .notFound))
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "9")).ok.body.json }
        }

        #expect(error?.status == .notFound)
        #expect(error?.responseHead?.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(error?.responseBody == Data("no such item".utf8))
    }

    @Test func anUndocumentedStatusIsUnacceptableStatusWithItsHeadAndBody() async throws {
        let transport = StubTransport()
        transport.on(
            .get,
            "/v1/items/42",
            respond: StubResponse(
                status: .serviceUnavailable,
                headerFields: [.retryAfter: "120", .contentType: "application/json"],
                body: Data(#"{"reason":"maintenance"}"#.utf8)
            )
        )
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }

        #expect(error?.status == .serviceUnavailable)
        #expect(error?.responseHead?.headerFields[.retryAfter] == "120")
        #expect(error?.responseBody == Data(#"{"reason":"maintenance"}"#.utf8))
    }

    @Test func anErrorBodyIsKeptToTheClientsLimit() async throws {
        let transport = StubTransport()
        let page = String(repeating: "x", count: BaselineHTTP.HTTPClient.errorBodyLimit + 10)
        transport.on(
            .get,
            "/v1/items/42",
            respond: StubResponse(status: .badGateway, body: Data(page.utf8))
        )
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }

        #expect(error?.status == .badGateway)
        #expect(error?.responseBody?.count == BaselineHTTP.HTTPClient.errorBodyLimit)
    }

    @Test func aCaseTheCallerHandlesThrowsWhatTheCallerThrows() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/9", respond: .status(.notFound))
        let api = makeAPI(on: transport)

        await #expect(throws: NoSuchItem.self) {
            try await withHTTPClientErrors {
                switch try await api.getItem(path: .init(id: "9")) {
                case let .ok(ok): return try ok.body.json
                case .notFound: throw NoSuchItem()
                case let .undocumented(statusCode, _): throw HTTPClientError.invalidRequest(reason: "\(statusCode)")
                }
            }
        }
    }

    @Test func aTransportFailureIsTheClientsOwnError() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42") { _ in throw URLError(.cannotConnectToHost) }
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }

        guard case let .transport(underlying)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect((underlying as? URLError)?.code == .cannotConnectToHost)
    }

    @Test func cancellationIsCancellationError() async throws {
        let transport = StubTransport()
        let held = transport.hold(.get, "/v1/items/42")
        let api = makeAPI(on: transport)

        let call = Task {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }
        _ = try await held.nextCall()
        call.cancel()

        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test func aSuccessThatDoesNotMatchTheDocumentIsDecodingFailedWithAnExcerpt() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: .text(#"{"id":"42"}"#, contentType: "application/json"))
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }

        guard case let .decodingFailed(underlying, excerpt)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying is DecodingError)
        #expect(excerpt == #"{"id":"42"}"#)
    }

    @Test func anotherSuccessIsDecodingFailedAndAnotherErrorStatusIsItsStatus() async throws {
        let transport = StubTransport()
        // A 201 to a GET that documents only 200 and 404: not the answer asked for.
        transport.on(.get, "/v1/items/42", respond: try .json(lamp, status: .created))
        transport.on(.delete, "/v1/items/42", respond: .text("gone already", status: .gone))
        let api = makeAPI(on: transport)

        let created = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }
        let gone = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.deleteItem(path: .init(id: "42")).noContent }
        }

        // A 2xx that is not the one asked for cannot be read as it: decoding.
        guard case .decodingFailed? = created else {
            Issue.record("expected decodingFailed, got \(String(describing: created))")
            return
        }
        #expect(gone?.status == .gone)
        #expect(gone?.responseBody == Data("gone already".utf8))
    }

    @Test func theLatestAnswerIsTheOneReported() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: try .json(lamp))
        transport.on(.get, "/v1/items/9", respond: .text("not here", status: .notFound))
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors {
                _ = try await api.getItem(path: .init(id: "42")).ok.body.json
                return try await api.getItem(path: .init(id: "9")).ok.body.json
            }
        }

        #expect(error?.status == .notFound)
        #expect(error?.responseBody == Data("not here".utf8))
    }

    @Test func aMiddlewaresErrorIsItsOwn() async throws {
        struct Refused: Error {}
        struct RefusingMiddleware: ClientMiddleware {
            func intercept(
                _ request: HTTPRequest,
                body: OpenAPIRuntime.HTTPBody?,
                baseURL: URL,
                operationID: String,
                next: (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (
                    HTTPResponse, OpenAPIRuntime.HTTPBody?
                )
            ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
                throw Refused()
            }
        }
        let transport = StubTransport()
        let http = BaselineHTTP.HTTPClient(baseURL: URL(string: "https://unused.test")!, transport: transport)
        let api = Client(
            serverURL: apiURL,
            transport: OpenAPITransport(client: http),
            middlewares: [RefusingMiddleware()]
        )

        await #expect(throws: Refused.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aBodyOverTheClientsLimitIsResponseTooLarge() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", respond: try .json(lamp))
        let api = makeAPI(
            on: transport,
            configuration: .init(baseURL: URL(string: "https://unused.test")!, maximumResponseSize: 8)
        )

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.getItem(path: .init(id: "42")).ok.body.json }
        }

        guard case .responseTooLarge(limit: 8)? = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
    }

    @Test func anErrorStatusWithoutABodyHasAnEmptyOne() async throws {
        let transport = StubTransport()
        transport.on(.delete, "/v1/items/9", respond: .status(.notFound))
        let api = makeAPI(on: transport)

        let error = await #expect(throws: HTTPClientError.self) {
            try await withHTTPClientErrors { try await api.deleteItem(path: .init(id: "9")).noContent }
        }

        #expect(error?.status == .notFound)
        #expect(error?.responseBody == Data())
    }
}
