import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("ValidationMiddleware", .timeLimit(.minutes(1)))
struct ValidationMiddlewareTests {
    let transport = StubTransport()

    @Test func passesAnAcceptableResponseThrough() async throws {
        transport.on(.get, "/x", respond: .text(#"{"a":1}"#, contentType: "application/json; charset=utf-8"))
        let validation = ValidationMiddleware(acceptableContentTypes: [.json])
        let (response, body) = try await send(apiRequest(.get, "/x"), through: [validation], to: transport)
        #expect(response.status == .ok)
        #expect(body == Data(#"{"a":1}"#.utf8))
    }

    @Test func anUnacceptableStatusKeepsHeadAndBody() async throws {
        transport.on(
            .get,
            "/x",
            respond: StubResponse(
                status: .serviceUnavailable,
                headerFields: [.retryAfter: "5"],
                body: Data("down".utf8)
            )
        )
        await #expect {
            try await send(apiRequest(.get, "/x"), through: [ValidationMiddleware()], to: transport)
        } throws: { error in
            guard case let .unacceptableStatus(head, body) = error as? HTTPClientError else { return false }
            return head.status == .serviceUnavailable && head.headerFields[.retryAfter] == "5"
                && body == Data("down".utf8)
        }
    }

    @Test func anErrorBodyOverTheLimitIsLeftOut() async throws {
        transport.on(.get, "/x", respond: .text(String(repeating: "x", count: 100), status: .badRequest))
        await #expect {
            try await send(
                apiRequest(.get, "/x"),
                through: [ValidationMiddleware(maximumErrorBodySize: 10)],
                to: transport
            )
        } throws: { ($0 as? HTTPClientError)?.responseBody == Data() }
    }

    @Test func statusChecksCanBeTurnedOff() async throws {
        transport.on(.get, "/x", respond: .status(.notFound))
        let (response, _) = try await send(
            apiRequest(.get, "/x"),
            through: [ValidationMiddleware(acceptableStatusCodes: nil)],
            to: transport
        )
        #expect(response.status == .notFound)
    }

    @Test func anUnacceptableContentTypeIsReported() async throws {
        transport.on(.get, "/x", respond: .text("<html>", contentType: "text/html"))
        await #expect {
            try await send(
                apiRequest(.get, "/x"),
                through: [ValidationMiddleware(acceptableContentTypes: [.json])],
                to: transport
            )
        } throws: { error in
            guard case let .unacceptableContentType(type, head) = error as? HTTPClientError else { return false }
            return type == "text/html" && head.status == .ok
        }
    }

    @Test func aBodyWithoutAContentTypeIsReported() async throws {
        transport.on(.get, "/x", respond: StubResponse(body: Data("?".utf8)))
        await #expect {
            try await send(
                apiRequest(.get, "/x"),
                through: [ValidationMiddleware(acceptableContentTypes: [.json])],
                to: transport
            )
        } throws: { error in
            guard case .unacceptableContentType(nil, _) = error as? HTTPClientError else { return false }
            return true
        }
    }

    @Test func responsesWithoutContentAreNotCheckedForType() async throws {
        transport.on(.delete, "/x", respond: .status(.noContent))
        let (response, _) = try await send(
            apiRequest(.delete, "/x"),
            through: [ValidationMiddleware(acceptableContentTypes: [.json])],
            to: transport
        )
        #expect(response.status == .noContent)
    }

    @Test(arguments: [
        ("application/json", "application/json", true, true),
        ("APPLICATION/JSON; charset=utf-8", "application/json", true, true),
        ("application/problem+json", "application/json", true, true),
        ("application/problem+json", "application/json", false, false),
        ("application/jsonx", "application/json", true, false),
        ("text/json", "application/json", true, false),
        ("image/png", "image/*", true, true),
        ("text/plain", "*/*", true, true),
        ("not a type", "*/*", true, false),
    ])
    func mediaTypeRangesMatchIgnoringParametersAndCase(
        contentType: String,
        range: String,
        allowingSuffix: Bool,
        matches: Bool
    ) {
        #expect(MediaTypeRange(stringLiteral: range).matches(contentType, allowingSuffix: allowingSuffix) == matches)
    }

    // The fuzzer's find: a combining mark after the tabs was its own
    // character, and printed after `/` it glued onto the slash.
    @Test(
        "A media type is two tokens; anything else is not a media type",
        arguments: [
            ("\u{FFFD}/ \t\t\t\u{310}", nil),
            ("text/\u{310}", nil),
            ("te xt/plain", nil),
            ("text/pla\"in", nil),
            ("text/", nil),
            (" Text/Plain ; charset=utf-8", "text/plain"),
            ("application/vnd.api+json", "application/vnd.api+json"),
        ] as [(String, String?)]
    )
    func aMediaTypeIsTwoTokens(text: String, parsed: String?) {
        let range = MediaTypeRange(text)
        #expect(range?.description == parsed)
        if let range { #expect(MediaTypeRange(range.description) == range) }
    }
}
