import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Logging
import Testing

@Suite("LoggingMiddleware", .timeLimit(.minutes(1)))
struct LoggingMiddlewareTests {
    let transport = StubTransport()
    let logs = LogRecorder()
    let apiKey = HTTPField.Name("X-Api-Key")!

    @Test func logsTheRequestAndTheResponseWithCredentialsRedacted() async throws {
        transport.on(
            .get,
            "/me",
            respond: StubResponse(headerFields: [.setCookie: "session=s3cr3t-cookie"], body: Data("me".utf8))
        )
        let request = apiRequest(
            .get,
            "/me",
            headerFields: [
                .authorization: "Bearer s3cr3t-token", .cookie: "session=s3cr3t-cookie", apiKey: "s3cr3t-key",
                .accept: "application/json",
            ]
        )
        let logging = LoggingMiddleware(logger: logs.logger(), redacting: [apiKey])
        _ = try await send(request, through: [logging], to: transport)

        #expect(!logs.text.contains("s3cr3t"))
        #expect(logs.entries.count == 2)
        let (sent, received) = (logs.entries[0], logs.entries[1])
        #expect(sent.message == "→ GET https://api.test/me")
        let requestHeaders = try #require(sent.metadata["http.request.headers"])
        #expect(requestHeaders.contains("Authorization: <redacted>"))
        #expect(requestHeaders.contains("X-Api-Key: <redacted>"))
        #expect(requestHeaders.contains("Accept: application/json"))
        #expect(received.message.hasPrefix("← 200 GET https://api.test/me ("))
        #expect(received.metadata["http.status"] == "200")
        #expect(received.metadata["http.response.headers"]?.contains("Set-Cookie: <redacted>") == true)
        #expect(sent.metadata["http.id"] == received.metadata["http.id"])
    }

    @Test func logsAFailureAtTheFailureLevel() async throws {
        transport.on(.get, "/x") { _ in throw URLError(.notConnectedToInternet) }
        let logging = LoggingMiddleware(logger: logs.logger(), failureLevel: .warning)
        await #expect(throws: URLError.self) {
            try await send(apiRequest(.get, "/x"), through: [logging], to: transport)
        }
        let failure = try #require(logs.entries.last)
        #expect(failure.level == .warning)
        #expect(failure.message.hasPrefix("✕ GET https://api.test/x failed"))
        #expect(failure.metadata["http.error"] != nil)
    }

    @Test func redactsChosenQueryItems() async throws {
        transport.on(.get, "/x", respond: .text("ok"))
        let logging = LoggingMiddleware(logger: logs.logger(), redacting: RedactionPolicy(queryItemNames: ["api_key"]))
        _ = try await send(apiRequest(.get, "/x?page=2&api_key=s3cr3t"), through: [logging], to: transport)
        #expect(!logs.text.contains("s3cr3t"))
        #expect(logs.entries.first?.message == "→ GET https://api.test/x?page=2&api_key=<redacted>")
    }
}

@Suite("cURL description")
struct CurlDescriptionTests {
    @Test func aGetIsJustTheURLAndHeaders() {
        let request = apiRequest(.get, "/photos?date=2024-01-02", headerFields: [.accept: "application/json"])
        #expect(
            request.curlDescription() == "curl 'https://api.test/photos?date=2024-01-02' -H 'Accept: application/json'"
        )
    }

    @Test func aPostHasItsMethodRedactedCredentialsAndItsBodyQuoted() {
        let request = apiRequest(
            .post,
            "/notes",
            headerFields: [.contentType: "application/json", .authorization: "Bearer s3cr3t"]
        )
        let curl = request.curlDescription(body: Data(#"{"text":"it's"}"#.utf8))
        #expect(
            curl
                == #"curl -X POST 'https://api.test/notes' -H 'Content-Type: application/json' -H 'Authorization: <redacted>' --data-binary '{"text":"it'\''s"}'"#
        )
    }

    @Test func singleQuotesInHeaderValuesAreEscaped() {
        let request = apiRequest(.get, "/x", headerFields: [HTTPField.Name("X-Name")!: "O'Brien"])
        #expect(request.curlDescription() == #"curl 'https://api.test/x' -H 'X-Name: O'\''Brien'"#)
    }

    @Test func aHeadUsesTheHeadOption() {
        #expect(apiRequest(.head, "/x").curlDescription() == "curl --head 'https://api.test/x'")
    }

    @Test func redactionCanBeWidened() {
        let request = apiRequest(.get, "/x", headerFields: [HTTPField.Name("X-Api-Key")!: "s3cr3t"])
        let curl = request.curlDescription(redacting: [HTTPField.Name("x-api-key")!])
        #expect(curl == "curl 'https://api.test/x' -H 'X-Api-Key: <redacted>'")
    }

    @Test func aBinaryBodyIsShownAsItsSize() {
        let curl = apiRequest(.put, "/blob").curlDescription(body: Data([0xFF, 0xFE, 0x00]))
        #expect(curl == "curl -X PUT 'https://api.test/blob' --data-binary '<binary body: 3 bytes>'")
    }
}
