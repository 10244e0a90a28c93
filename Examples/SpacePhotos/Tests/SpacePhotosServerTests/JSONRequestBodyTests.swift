import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import SpacePhotosServer

/// A JSON route refuses a declared length over its limit before reading:
/// a client that declares 2^63 bytes does not keep it waiting for them.
@Suite("JSON bodies: a declared length over the limit")
struct JSONRequestBodyTests {
    @Test(arguments: ["9223372036854775807", "16385", "99999999999999999999"])
    func aDeclaredLengthOverTheLimitIs413BeforeReading(length: String) async throws {
        let server = ExampleServer(configuration: .init(passwordHasher: PasswordHasher(cost: 4)))
        let app = Application(router: try await server.makeRouter())
        try await app.test(.router) { client in
            // No body follows: the server must not wait for one.
            let response = try await client.executeRequest(
                uri: "/auth/login",
                method: .post,
                headers: [.contentType: "application/json", .contentLength: length],
                body: nil
            )
            let error = try? JSONDecoder().decode(APIError.Document.self, from: Data(response.body.readableBytesView))
            #expect(response.status == .contentTooLarge)
            #expect(error?.error.code == "body_too_large")
        }
    }
}
