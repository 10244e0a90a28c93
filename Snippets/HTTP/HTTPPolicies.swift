// Configuring the built-in middleware: retries, redirects, validation,
// caching and logging.

// snippet.hide
import BaselineHTTP
import Foundation
import HTTPTypes
import Logging

let apiURL = URL(string: "https://api.example.com")!
let logger = Logger(label: "api")

// snippet.show
// snippet.retry
var policy = RetryPolicy()
policy.maximumAttempts = 4  // the first attempt and three retries
policy.baseDelay = .milliseconds(250)  // ceilings of 0.25 s, 0.5 s, 1 s before each retry
policy.maximumRetryAfter = .seconds(20)  // a server asking for longer gets no retry
policy.retryableMethods.insert(.post)  // this API's POSTs carry an idempotency key
let retry = RetryMiddleware(policy: policy)
// snippet.end

// snippet.redirect
var configuration = HTTPClient.Configuration(baseURL: apiURL)
// Follow redirects only within the API's own host; return any other 3xx as it is.
configuration.redirectPolicy = .custom(maximum: 5) { _, next in
    next.authority == "api.example.com" ? next : nil
}
// snippet.end

// snippet.validation
let validation = ValidationMiddleware(
    acceptableStatusCodes: nil,  // the client checks statuses per request
    acceptableContentTypes: [.json, "text/plain"]
)
// snippet.end

// snippet.cache
let cacheStore = MemoryCacheStore(byteLimit: 8 * 1024 * 1024)
let cache = ResponseCache(store: cacheStore, maximumEntrySize: 512 * 1024)

/// Logging out: the cache keys entries on URLs, not on the user.
func logOut() async {
    await cacheStore.removeAll()
}
// snippet.end

// snippet.logging
let logging = LoggingMiddleware(
    logger: logger,
    requestLevel: .debug,
    responseLevel: .info,
    // `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are always hidden.
    redacting: RedactionPolicy(headerNames: [HTTPField.Name("X-Api-Key")!], queryItemNames: ["api_key"])
)
// snippet.end

// snippet.client
let client = HTTPClient(
    configuration: configuration,
    middleware: [
        logging,  // one pair of entries per call
        validation,
        retry,
        cache,
        LoggingMiddleware(logger: logger, requestLevel: .trace, responseLevel: .trace),  // each network attempt
    ]
)
// snippet.end

// snippet.curl
let (head, _) = try client.makeHTTPRequest(Request<Void>.get("/members/me").header(.authorization, "Bearer secret"))
print(head.curlDescription())
// curl 'https://api.example.com/members/me' -H 'Accept: application/json' -H 'Authorization: <redacted>'
// snippet.end

// snippet.hide
await logOut()
