import Foundation
import HTTPTypes
import Testing

@testable import BaselineHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every case of `HTTPClientError` reads as one line a person understands,
/// and `localizedDescription` is that line.
@Suite("HTTPClientError descriptions")
struct HTTPClientErrorDescriptionTests {
    static let url = URL(string: "http://127.0.0.1:8080/photos")!

    static func urlError(_ code: URLError.Code) -> URLError {
        URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url])
    }

    static func status(_ code: Int, json: String) -> HTTPClientError {
        .unacceptableStatus(HTTPResponse(status: .init(code: code)), body: Data(json.utf8))
    }

    struct Login: Decodable {
        var id: String
        var password: String
    }

    struct Photos: Decodable {
        struct Photo: Decodable { var title: String }
        var photos: [Photo]
    }

    static func decoding<T: Decodable>(_ type: T.Type, _ json: String) -> HTTPClientError {
        do {
            _ = try JSONDecoder().decode(type, from: Data(json.utf8))
            return .invalidRequest(reason: "decoded")
        } catch {
            return .decodingFailed(underlying: error, bodyExcerpt: json)
        }
    }

    @Test(arguments: [
        (urlError(.cannotConnectToHost), "Could not connect to 127.0.0.1:8080 (connection refused)"),
        (urlError(.networkConnectionLost), "The connection to 127.0.0.1:8080 was lost"),
        (urlError(.timedOut), "The request to 127.0.0.1:8080 timed out"),
        (urlError(.cannotFindHost), "Could not find the server 127.0.0.1"),
        (urlError(.notConnectedToInternet), "There is no network connection"),
        (urlError(.badServerResponse), "127.0.0.1:8080 sent a malformed response"),
        (urlError(.secureConnectionFailed), "Could not make a secure connection to 127.0.0.1:8080"),
        (URLError(.networkConnectionLost), "The connection to the server was lost"),
    ])
    func transportErrorsFromURLSession(_ error: URLError, _ expected: String) {
        #expect(HTTPClientError.transport(underlying: error).description == expected)
    }

    @Test func transportFailuresOfOtherTransports() {
        struct ChannelClosed: Error {}
        let cases: [(TransportFailure.Reason, String)] = [
            (.cannotConnect(detail: "connection refused"), "Could not connect to 127.0.0.1:1 (connection refused)"),
            (.connectionLost, "The connection to 127.0.0.1:1 was lost"),
            (.timedOut, "The connection to 127.0.0.1:1 timed out"),
            (
                .malformedResponse(detail: "invalid chunk size"),
                "127.0.0.1:1 sent a malformed response (invalid chunk size)"
            ),
            (.other(detail: "closed"), "The request to 127.0.0.1:1 failed (closed)"),
        ]
        for (reason, expected) in cases {
            let error = HTTPClientError.transport(
                underlying: TransportFailure(reason, server: "127.0.0.1:1", underlying: ChannelClosed())
            )
            #expect(error.description == expected)
        }
        #expect(
            HTTPClientError.transport(underlying: POSIXError(.ECONNRESET)).description
                == "The connection failed (connection reset by peer)"
        )
    }

    @Test func unacceptableStatusShowsTheServersMessage() {
        #expect(
            Self.status(404, json: #"{"message":"No photo for 2024-13-01"}"#).description
                == "404 Not Found: No photo for 2024-13-01"
        )
        #expect(
            Self.status(400, json: #"{"error":{"message":"The field \"password\" is missing"}}"#).description
                == #"400 Bad Request: The field "password" is missing"#
        )
        #expect(Self.status(422, json: #"{"detail":"Too big"}"#).description == "422 Unprocessable Content: Too big")
        #expect(Self.status(409, json: #"{"error":"Taken"}"#).description == "409 Conflict: Taken")
        #expect(Self.status(500, json: #"{"title":"Oops"}"#).description == "500 Internal Server Error: Oops")
        #expect(
            Self.status(503, json: "<html>down</html>").description == "The server answered 503 Service Unavailable"
        )
        #expect(Self.status(404, json: "").description == "The server answered 404 Not Found")
        // The raw body stays available.
        #expect(Self.status(404, json: #"{"message":"x"}"#).responseBody == Data(#"{"message":"x"}"#.utf8))
        #expect(Self.status(404, json: #"{"message":"x"}"#).serverMessage == "x")
    }

    @Test func decodingFailuresSayWhichFieldAndWhy() {
        #expect(Self.decoding(Login.self, #"{"id":"astro"}"#).description == #"The response has no field "password""#)
        #expect(
            Self.decoding(Login.self, #"{"id":"astro","password":7}"#).description
                == #"The response's field "password" is not a string"#
        )
        #expect(
            Self.decoding(Login.self, #"{"id":"astro","password":null}"#).description
                == #"The response's field "password" is null, expected a string"#
        )
        #expect(
            Self.decoding(Photos.self, #"{"photos":[{"title":"a"},{}]}"#).description
                == #"The response has no field "photos[1].title""#
        )
        #expect(Self.decoding(Login.self, "[]").description == "The response is not an object")
        #expect(Self.decoding(Login.self, "{nope").description.hasPrefix("The response is not valid JSON ("))
    }

    @Test func otherCases() {
        struct DiskFull: Error, CustomStringConvertible { var description: String { "the disk is full" } }
        let head = HTTPResponse(status: .ok)
        let cases: [(HTTPClientError, String)] = [
            (
                .invalidRequest(reason: "the path has no leading slash"),
                "Could not make the request: the path has no leading slash"
            ),
            (.responseTooLarge(limit: 1024), "The response is larger than the limit of 1024 bytes"),
            (.timedOut(after: .seconds(5)), "The request timed out after 5 s"),
            (.timedOut(after: .milliseconds(250)), "The request timed out after 250 ms"),
            (.timedOut(after: .milliseconds(1500)), "The request timed out after 1.5 s"),
            // Counted in milliseconds, this one overflowed.
            (.timedOut(after: .seconds(Int64.max)), "The request timed out after \(Int64.max) s"),
            (.tooManyRedirects(limit: 5), "The server redirected more than 5 times"),
            (
                .unacceptableContentType("text/html", head),
                "The server answered 200 with content type text/html, which the request does not accept"
            ),
            (.unacceptableContentType(nil, head), "The server answered 200 with a body but no content type"),
            (
                .authenticationFailed(
                    .refreshFailed(
                        underlying: HTTPClientError.transport(underlying: Self.urlError(.cannotConnectToHost))
                    )
                ),
                "Authentication failed: Could not connect to 127.0.0.1:8080 (connection refused)"
            ),
            (.fileFailure(path: "/tmp/x", underlying: DiskFull()), "Could not write /tmp/x: the disk is full"),
        ]
        for (error, expected) in cases {
            #expect(error.description == expected)
            #expect(error.localizedDescription == expected)
        }
    }
}
