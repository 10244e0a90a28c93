import Foundation
import HTTPTypes
import Hummingbird

/// `GET /flaky/{key}?failures=N&retryAfter=S`: fails the first `N` requests
/// for a key (default 2, at most 100) with 503 and `Retry-After: S`
/// (seconds, default 1, at most 3,600), then answers 200
/// `{"key", "attempts"}` — for testing a client's retry policy.
struct FlakyRoutes: Sendable {
    let counter: AttemptCounter

    struct Success: ResponseEncodable {
        var key: String
        var attempts: Int
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("flaky/:key") { request, context -> Success in
            guard let key = context.parameters.get("key"), (1...200).contains(key.count) else {
                throw APIError(.badRequest, code: "bad_request", message: "The key must be 1 to 200 characters.")
            }
            let failures = try request.integerParameter("failures", in: 0...100) ?? 2
            let retryAfter = try request.integerParameter("retryAfter", in: 0...3_600) ?? 1
            let attempt = await counter.recordAttempt(key)
            guard attempt > failures else {
                throw APIError(
                    .serviceUnavailable,
                    code: "unavailable",
                    message: "Failing on purpose: attempt \(attempt) of \(failures) planned failures.",
                    headers: [.retryAfter: String(retryAfter)]
                )
            }
            return Success(key: key, attempts: attempt)
        }
    }
}
