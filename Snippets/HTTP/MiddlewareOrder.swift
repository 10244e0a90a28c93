// Middleware: the recommended stack, and a middleware of your own.

// snippet.hide
import BaselineHTTP
import Foundation
import HTTPTypes
import Logging

/// A token provider for the example: a fixed token, refreshed by asking again.
actor SessionTokens: AccessTokenProvider {
    private var token: String? = "initial"

    func accessToken() -> String? { token }

    func refreshAccessToken(rejected: String) async throws -> String {
        let fresh = "fresh-\(UUID().uuidString)"
        token = fresh
        return fresh
    }
}

let apiURL = URL(string: "https://api.example.com")!
let logger = Logger(label: "api")
let tokens = SessionTokens()

// snippet.show
// snippet.stack
// Outermost first: the first middleware sees the request first and the response last.
let client = HTTPClient(
    configuration: .init(baseURL: apiURL, timeout: .seconds(30)),
    middleware: [
        LoggingMiddleware(logger: logger),  // one entry per call, whatever happened inside
        ValidationMiddleware(acceptableContentTypes: [.json]),  // judges the final response
        RetryMiddleware(policy: RetryPolicy(maximumAttempts: 3)),  // each attempt goes through what follows
        BearerAuthentication(provider: tokens),  // each attempt gets the current token
        ResponseCache(store: MemoryCacheStore(byteLimit: 8 << 20)),  // a hit never reaches the network
        RequestCoalescing(),  // cache misses in flight share one call
    ]
)
// The client adds redirects last, next to the transport.
// snippet.end

// snippet.custom
/// Sends a request ID with every attempt, and records how long the server took.
struct RequestID: HTTPMiddleware {
    let logger: Logger

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        // 1. Adapt the request: `HTTPRequest` is a value, so change a copy.
        var request = request
        let id = UUID().uuidString
        request.headerFields[HTTPField.Name("X-Request-ID")!] = id

        // 2. Pass it on. Whatever `next` throws (CancellationError included) goes up as it is.
        let start = ContinuousClock.now
        let (response, responseBody) = try await next(request, body)

        // 3. Inspect the response head. The body is still arriving: leave it to the caller.
        logger.debug(
            "Answered",
            metadata: ["id": "\(id)", "status": "\(response.status.code)", "elapsed": "\(ContinuousClock.now - start)"]
        )
        return (response, responseBody)
    }
}
// snippet.end

// snippet.replace
/// Answers `/health` without the network while the app runs offline.
struct OfflineHealth: HTTPMiddleware {
    let isOffline: @Sendable () -> Bool

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        guard isOffline(), request.path == "/health" else {
            return try await next(request, body)
        }
        // A middleware may answer itself: the rest of the chain never runs.
        let head = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
        return (head, HTTPBody(#"{"status":"offline"}"#))
    }
}
// snippet.end

// snippet.hide
_ = client
_ = RequestID(logger: logger)
_ = OfflineHealth { false }
