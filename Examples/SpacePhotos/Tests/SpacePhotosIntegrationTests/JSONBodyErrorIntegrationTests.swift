import BaselineHTTP
import Foundation
import SpacePhotosServer
import Testing

/// Bad JSON bodies get 400 with the server's error document, and a message
/// that says what to fix: which field is missing or of the wrong type, or
/// where the JSON breaks.
@Suite("Bad JSON bodies: messages naming the field", .timeLimit(.minutes(2)))
struct JSONBodyErrorIntegrationTests {
    enum Failure: Error { case unexpectedSuccess }

    /// The error a `POST` of `body` to `path` gets.
    func errorPosting(_ body: String, to path: String, on server: RunningServer) async throws -> HTTPClientError {
        do {
            try await server.client.send(
                Request<Void>.post(path, body: .data(Data(body.utf8), contentType: "application/json"))
            )
        } catch let error as HTTPClientError {
            return error
        }
        throw Failure.unexpectedSuccess
    }

    @Test(arguments: [
        (#"{"id": "astro"}"#, "The JSON body is missing the field `password`."),
        (#"{"password": "stardust-42"}"#, "The JSON body is missing the field `id`."),
        (#"{"id": 7, "password": "stardust-42"}"#, "The field `id` must be a string."),
        (#"{"id": "astro", "password": null}"#, "The field `password` must be a string, not null."),
        (#"["astro", "stardust-42"]"#, "The JSON body must be an object."),
        ("", "The request needs a JSON body; it was empty."),
    ])
    func aLoginBodyWithAFieldMissingOrWrongSaysWhich(body: String, message: String) async throws {
        try await withServer { server in
            let error = try await errorPosting(body, to: "/auth/login", on: server)
            #expect(error.status == .badRequest)
            #expect(error.serverError?.code == "bad_request")
            #expect(error.serverError?.message == message)
        }
    }

    @Test func malformedJSONSaysSoAndWhere() async throws {
        try await withServer { server in
            let error = try await errorPosting(#"{"id": "astro", "password": "#, to: "/auth/login", on: server)
            #expect(error.status == .badRequest)
            let message = try #require(error.serverError?.message)
            #expect(message.hasPrefix("The body is not valid JSON"))
            #expect(!message.contains("password` not found"))
        }
    }

    @Test func aRefreshBodyWithoutItsTokenSaysWhich() async throws {
        try await withServer { server in
            let error = try await errorPosting(#"{"token": "abc"}"#, to: "/auth/refresh", on: server)
            #expect(error.status == .badRequest)
            #expect(error.serverError?.message == "The JSON body is missing the field `refreshToken`.")
        }
    }
}
