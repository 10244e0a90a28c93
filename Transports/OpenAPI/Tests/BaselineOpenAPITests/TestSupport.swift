import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The server URL of the test API: a path prefix, as most servers have.
let apiURL = URL(string: "https://api.example.test/v1")!

/// The generated client over an `HTTPClient` with `middleware` on `transport`.
func makeAPI(
    on transport: StubTransport,
    middleware: [any HTTPMiddleware] = [],
    configuration: BaselineHTTP.HTTPClient.Configuration = .init(baseURL: URL(string: "https://unused.test")!),
    serverURL: URL = apiURL,
    replayableBodyLimit: Int = 1024 * 1024
) -> Client {
    let http = BaselineHTTP.HTTPClient(configuration: configuration, transport: transport, middleware: middleware)
    return Client(
        serverURL: serverURL,
        transport: OpenAPITransport(client: http, replayableBodyLimit: replayableBodyLimit)
    )
}

let lamp = Components.Schemas.Item(id: "42", name: "Lamp", tags: ["light"])

/// The Baseline error under the runtime's `ClientError`, where there is one.
func underlying(_ error: any Error) -> (any Error)? {
    (error as? ClientError)?.underlyingError
}

/// An OpenAPI body that can be iterated once and has no declared length, as
/// a stream the caller makes: the chunks given, then the end.
func singlePassBody(_ chunks: [String]) -> OpenAPIRuntime.HTTPBody {
    let (stream, continuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
    for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
    continuation.finish()
    return OpenAPIRuntime.HTTPBody(stream, length: .unknown)
}

/// Sends access tokens, and replaces a rejected one when the test says,
/// through `refresh` (called with the rejected token, returns the new one).
actor TestTokens: AccessTokenProvider {
    private var token: String?
    let refresh = ControllableCall<String, String>()

    init(_ token: String) {
        self.token = token
    }

    func accessToken() -> String? { token }

    func refreshAccessToken(rejected: String) async throws -> String {
        let fresh = try await refresh(rejected)
        token = fresh
        return fresh
    }
}
