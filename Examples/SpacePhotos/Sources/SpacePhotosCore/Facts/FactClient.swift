import BaselineHTTP
import Foundation

/// Trivia about numbers: a struct of closures, so tests swap the live value
/// for one they control.
public struct FactClient: Sendable {
    /// The fact about a number.
    public var fetch: @Sendable (Int) async throws -> String

    /// A client answering with `fetch`: a double in tests,
    /// ``live(client:clock:fallbackDelay:serverOptions:)`` in the app.
    public init(fetch: @escaping @Sendable (Int) async throws -> String) {
        self.fetch = fetch
    }
}

extension FactClient {
    /// Asks the example server (`GET /facts/{n}`). When that fails, it waits
    /// `fallbackDelay` on `clock` and answers "<n> is a good number", so the
    /// counter always has something to show; cancellation is never turned into a fallback.
    ///
    /// - Parameters:
    ///   - serverOptions: Query items for the server's test knobs
    ///     (`delay`, `fail`), for demos.
    public static func live(
        client: HTTPClient,
        clock: any Clock<Duration> = ContinuousClock(),
        fallbackDelay: Duration = .seconds(1),
        serverOptions: [URLQueryItem] = []
    ) -> FactClient {
        FactClient { number in
            do {
                // Hand-written, not the generated `fact`: every failure gets
                // the same fallback, so its documented cases add nothing, and
                // its text/plain body would stream unbounded where `send`
                // holds it to the client's maximumResponseSize.
                return try await client.send(Request<String>.get("/facts/\(number)", query: serverOptions)).value
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                try await clock.sleep(for: fallbackDelay)
                return "\(number) is a good number."
            }
        }
    }
}
