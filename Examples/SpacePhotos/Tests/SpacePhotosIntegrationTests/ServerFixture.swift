import BaselineHTTP
import Foundation
import SpacePhotosServer

/// Runs `body` against a real example server on a free loopback port, and
/// stops the server afterwards, whether `body` returns or throws.
///
/// bcrypt runs at its minimum cost here: the algorithm is the same, the
/// tests are just not meant to be slow.
func withServer<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ configure: (inout ExampleServer.Configuration) -> Void = { _ in },
    _ body: (RunningServer) async throws -> T
) async throws -> T {
    var configuration = ExampleServer.Configuration(passwordHasher: PasswordHasher(cost: 4))
    configure(&configuration)
    let server = try await ExampleServer(configuration: configuration).start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

extension RunningServer {
    /// A client on the real URLSession transport.
    var client: HTTPClient {
        HTTPClient(baseURL: baseURL, transport: URLSessionTransport())
    }
}

extension HTTPClientError {
    /// The server's JSON error document, where there is one.
    var serverError: APIError.Document.Detail? {
        responseBody.flatMap { try? JSONDecoder().decode(APIError.Document.self, from: $0) }?.error
    }
}

extension RunningServer {
    /// The sync cursor this server hands out for a member's `seq`.
    func cursor(_ seq: Int64) -> Int64 { SyncCursor(seq: seq, epoch: syncEpoch).rawValue }
}
