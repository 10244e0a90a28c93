import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPMiddleware")
struct MiddlewareTests {
    /// Appends its name to a header on the way in, and to another on the way out.
    struct Tracer: HTTPMiddleware {
        let name: String
        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            next: @escaping Next
        ) async throws -> (HTTPResponse, HTTPBody) {
            var request = request
            request.headerFields.append(HTTPField(name: HTTPField.Name("X-Trace")!, value: name))
            var (response, body) = try await next(request, body)
            response.headerFields.append(HTTPField(name: HTTPField.Name("X-Trace")!, value: name))
            return (response, body)
        }
    }

    /// Answers 503 once by replacing the response, then lets requests through.
    struct ReplaceFirst: HTTPMiddleware {
        let seen = LockedValue(0)
        func intercept(
            _ request: HTTPRequest,
            body: HTTPBody?,
            next: @escaping Next
        ) async throws -> (HTTPResponse, HTTPBody) {
            let count = seen.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 1 { return (HTTPResponse(status: .serviceUnavailable), .empty) }
            return try await next(request, body)
        }
    }

    @Test func runsInOrderOutermostFirst() async throws {
        let transport = StubTransport()
        transport.on(.get, "/x", respond: .text("x"))
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            transport: transport,
            middleware: [Tracer(name: "outer"), Tracer(name: "inner")]
        )
        let response = try await client.send(Request<String>.get("/x"))
        let traceName = HTTPField.Name("X-Trace")!
        #expect(transport.requests.first?.headerFields[values: traceName] == ["outer", "inner"])
        #expect(response.headerFields[values: traceName] == ["inner", "outer"])
    }

    @Test func canReplaceTheResponseAndTheClientStillValidatesIt() async throws {
        let transport = StubTransport()
        transport.on(.get, "/x", respond: .text("x"))
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            transport: transport,
            middleware: [ReplaceFirst()]
        )
        await #expect {
            try await client.send(Request<String>.get("/x"))
        } throws: { ($0 as? HTTPClientError)?.status == .serviceUnavailable }
        #expect(transport.requests.isEmpty)
        #expect(try await client.send(Request<String>.get("/x")).value == "x")
    }
}
