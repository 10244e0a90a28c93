import BaselineHTTP
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import BaselineOpenAPI

@Suite("OpenAPITransport: URLs and bodies", .timeLimit(.minutes(1)))
struct ConversionTests {
    // MARK: URLs

    @Test(arguments: [
        ("https://api.example.test/v1", "/items/42", "https", "api.example.test", "/v1/items/42"),
        ("https://api.example.test/v1/", "/items/42", "https", "api.example.test", "/v1/items/42"),
        ("https://api.example.test", "/items", "https", "api.example.test", "/items"),
        ("https://api.example.test/", "/", "https", "api.example.test", "/"),
        ("http://127.0.0.1:8080/api", "/items?tag=a%20b", "http", "127.0.0.1:8080", "/api/items?tag=a%20b"),
        ("http://[::1]:8080/api", "/items", "http", "[::1]:8080", "/api/items"),
        ("https://api.example.test/v1?key=k", "/items?limit=5", "https", "api.example.test", "/v1/items?key=k&limit=5"),
        ("https://api.example.test/v1?key=k", "/items", "https", "api.example.test", "/v1/items?key=k"),
        ("https://api.example.test/v%201", "/items", "https", "api.example.test", "/v%201/items"),
    ])
    func theRequestPathGoesBelowTheServerURL(
        base: String,
        path: String,
        scheme: String,
        authority: String,
        expected: String
    ) throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path, headerFields: [.accept: "*/*"])

        let resolved = try RequestURL.request(request, at: URL(string: base)!)

        #expect(resolved.scheme == scheme)
        #expect(resolved.authority == authority)
        #expect(resolved.path == expected)
        #expect(resolved.method == .get)
        #expect(resolved.headerFields == [.accept: "*/*"])
    }

    @Test(arguments: ["/", "items", "file:///tmp/api"])
    func aServerURLWithoutAHostIsAnInvalidRequest(base: String) throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items")

        #expect {
            _ = try RequestURL.request(request, at: URL(string: base)!)
        } throws: { error in
            guard case .invalidRequest = error as? HTTPClientError else { return false }
            return true
        }
    }

    // MARK: Bodies

    @Test func aBodyInMemoryIsHeldWhole() async throws {
        let body = try await OutgoingBody.make(
            from: OpenAPIRuntime.HTTPBody("{\"name\":\"Lamp\"}"),
            replayableUpTo: 1024
        )

        #expect(body.isReplayable)
        #expect(body.knownLength == 15)
        #expect(try await body.collect(upTo: .max) == Data("{\"name\":\"Lamp\"}".utf8))
    }

    @Test func aStreamOfUnknownLengthWithinTheLimitIsHeldWhole() async throws {
        let body = try await OutgoingBody.make(from: singlePassBody(["ab", "cd", "ef"]), replayableUpTo: 6)

        #expect(body.isReplayable)
        #expect(body.knownLength == 6)
        #expect(try await body.collect(upTo: .max) == Data("abcdef".utf8))
    }

    @Test func anEmptyBodyIsHeld() async throws {
        let body = try await OutgoingBody.make(from: OpenAPIRuntime.HTTPBody(), replayableUpTo: 0)

        #expect(body.isReplayable)
        #expect(body.knownLength == 0)
    }

    @Test func aStreamOverTheLimitStreamsOnAfterWhatWasRead() async throws {
        let (stream, feed) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        feed.yield(ArraySlice("abc".utf8))
        feed.yield(ArraySlice("def".utf8))

        // Returns once past the limit, while the rest has not been sent yet.
        let body = try await OutgoingBody.make(
            from: OpenAPIRuntime.HTTPBody(stream, length: .unknown),
            replayableUpTo: 4
        )
        #expect(!body.isReplayable)
        #expect(body.knownLength == nil)

        feed.yield(ArraySlice("gh".utf8))
        feed.finish()
        #expect(try await body.collect(upTo: .max) == Data("abcdefgh".utf8))
    }

    @Test func aDeclaredLengthOverTheLimitIsNotReadBeforeSending() async throws {
        let (stream, feed) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()

        // Nothing has been sent: this returns without reading.
        let body = try await OutgoingBody.make(
            from: OpenAPIRuntime.HTTPBody(stream, length: .known(8)),
            replayableUpTo: 4
        )
        #expect(!body.isReplayable)
        #expect(body.knownLength == 8)

        feed.yield(ArraySlice("abcdefgh".utf8))
        feed.finish()
        #expect(try await body.collect(upTo: .max) == Data("abcdefgh".utf8))
    }

    @Test func aBodyThatFailsWhileHeldIsATransportError() async throws {
        let (stream, feed) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        feed.yield(ArraySlice("ab".utf8))
        feed.finish(throwing: URLError(.cannotOpenFile))

        await #expect {
            _ = try await OutgoingBody.make(from: OpenAPIRuntime.HTTPBody(stream, length: .unknown), replayableUpTo: 64)
        } throws: { error in
            guard case let .transport(cause) = error as? HTTPClientError else { return false }
            return (cause as? URLError)?.code == .cannotOpenFile
        }
    }

    // MARK: Response limits

    @Test(arguments: [
        ("application/json", true),
        ("application/json; charset=utf-8", true),
        ("Application/JSON", true),
        ("application/problem+json", true),
        ("application/x-www-form-urlencoded", true),
        ("application/xml", true),
        ("text/xml", true),
        ("application/atom+xml", true),
        ("*/*", true),
        ("application/*", true),
        ("nonsense", true),
        ("", true),
        ("  application/json \t; charset=utf-8", true),
        ("application/PROBLEM+JSON", true),
        ("TEXT/XML", true),
        ("application/json/extra", true),
        ("/json", true),
        ("application/", true),
        ("application/jsonx", false),
        ("application/octet-stream", false),
        ("image/jpeg", false),
        ("text/plain; charset=utf-8", false),
        ("multipart/form-data; boundary=x", false),
        ("text/event-stream", false),
    ])
    func theLimitAppliesToBodiesTheRuntimeReadsWhole(contentType: String, limited: Bool) {
        #expect(IncomingBody.isReadWhole([.contentType: contentType]) == limited)
    }

    @Test func aBodyWithoutAContentTypeIsLimited() {
        #expect(IncomingBody.isReadWhole([:]))
    }
}
