import ArgumentParser
import Foundation
import SpacePhotosServer

/// `--server`: the example server to talk to; without it, one is started in
/// this process for the command's duration.
struct ServerOptions: ParsableArguments {
    @Option(
        help:
            "The example server's address (e.g. http://127.0.0.1:8080, from `spacephotos serve`). Default: an embedded server."
    )
    var server: String?

    /// Runs `body` with the server's base URL, stopping an embedded server
    /// (started with `configuration`) afterwards.
    func withServer<T: Sendable>(
        configuration: ExampleServer.Configuration = .init(),
        _ body: (URL) async throws -> T
    ) async throws -> T {
        if let server {
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--server needs an http(s) address, like http://127.0.0.1:8080")
            }
            return try await body(url)
        }
        let running = try await ExampleServer(configuration: configuration).start()
        do {
            let result = try await body(running.baseURL)
            await running.stop()
            return result
        } catch {
            await running.stop()
            throw error
        }
    }
}
