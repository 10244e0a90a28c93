// Tests that read what code logged: that a warning was logged, and that a
// secret never was.

// snippet.hide
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Logging
import Testing

// snippet.show
// snippet.code
/// The code under test: signs in, and warns when the server is about to
/// retire the API version it speaks.
struct SignInService {
    let client: HTTPClient
    let logger: Logger

    struct Token: Decodable, Sendable { var idToken: String }

    func signIn(user: String, password: String) async throws -> String {
        let response = try await client.send(
            Request<Token>.post("/auth/login", body: .json(["user": user, "password": password]))
        )
        if let sunset = response.headerFields[HTTPField.Name("Sunset")!] {
            logger.warning("The sign-in API is being retired", metadata: ["sunset": "\(sunset)"])
        }
        logger.info("Signed in", metadata: ["user": "\(user)"])
        return response.value.idToken
    }
}
// snippet.end

// snippet.tests
@Suite struct SignInLoggingTests {
    let transport = StubTransport()
    let logs = LogRecorder()

    func makeService() -> SignInService {
        // The client's own logging goes to the recorder too, redaction included.
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            transport: transport,
            middleware: [LoggingMiddleware(logger: logs.logger(label: "http"))]
        )
        return SignInService(client: client, logger: logs.logger(label: "sign-in"))
    }

    @Test func neverLogsThePasswordOrTheToken() async throws {
        transport.on(.post, "/auth/login", respond: .text(#"{"idToken":"secret-token"}"#))

        let token = try await makeService().signIn(user: "astro", password: "stardust-42")

        // `text` is every message and its metadata: one `contains` covers all.
        #expect(!logs.text.contains("stardust-42"))
        #expect(!logs.text.contains(token))
    }

    @Test func warnsWhenTheAPIIsRetiring() async throws {
        transport.on(.post, "/auth/login") { _ in
            StubResponse(
                headerFields: [HTTPField.Name("Sunset")!: "Wed, 01 Jul 2026 00:00:00 GMT"],
                body: Data(#"{"idToken":"t"}"#.utf8)
            )
        }

        _ = try await makeService().signIn(user: "astro", password: "stardust-42")

        // `entries` for level, label and metadata one by one.
        let warnings = logs.entries.filter { $0.level == .warning }
        #expect(warnings.map(\.message) == ["The sign-in API is being retired"])
        #expect(warnings.first?.label == "sign-in")
        #expect(warnings.first?.metadata["sunset"] == "Wed, 01 Jul 2026 00:00:00 GMT")
    }
}
// snippet.end
