import Foundation
import HTTPTypes

/// A private HTTP cache (RFC 9111, the parts an app's API client needs):
/// answers `GET` requests from stored responses while they are fresh, and
/// revalidates them when they are not.
///
/// ```swift
/// let cache = ResponseCache(store: MemoryCacheStore(byteLimit: 10 * 1024 * 1024))
/// let client = HTTPClient(baseURL: apiURL, middleware: [
///     RetryMiddleware(),
///     BearerAuthentication(provider: tokens),
///     cache,
///     RequestCoalescing(),
/// ])
/// // On logout: await store.removeAll()
/// ```
///
/// What is stored: `200` responses to `GET`, whose body is at most
/// ``maximumEntrySize`` bytes, that say how long they are fresh (`max-age`,
/// or `Expires`) or how to revalidate them (`ETag`, `Last-Modified`).
/// Never stored: `Cache-Control: no-store` (on the request or the response),
/// and responses with a `Vary` field other than `Vary: Accept-Encoding`. The
/// cache does not key entries on varying header fields, so it leaves those
/// responses alone rather than serve one client variant for another.
///
/// How it answers:
/// - A fresh entry answers without the network, with an `Age` field.
/// - A stale entry with a validator is revalidated: the request goes out with
///   `If-None-Match` (from `ETag`) and `If-Modified-Since` (from
///   `Last-Modified`); a `304` is answered with the stored body, and the
///   entry's freshness and header fields are updated from the 304's (all
///   but those that frame or encode a body, such as `Content-Length` and
///   `Content-Encoding`: the body kept stays as it is). A `304` naming
///   another entity tag than the entry's is about a representation the cache
///   does not hold: the entry is dropped and the request sent again without
///   conditions. Any other response replaces the entry (if storable) and is
///   returned.
/// - `Age` and `max-age` are read as RFC 9111 defines them: digits only
///   (`-1`, `1e19` or `0x10` is no age), and a number too large counts as
///   2^31 seconds, so no value a server sends can upset the arithmetic.
/// - A stale entry is never served without revalidation, which is what
///   `must-revalidate` and `no-cache` responses ask for; `no-cache` responses
///   are revalidated every time. Responses without freshness information get
///   no heuristic freshness: they too are revalidated every time.
/// - A request with `Cache-Control: no-cache` goes to the network (its
///   response is still stored); with `no-store` the cache is left out entirely.
///   Requests that carry their own conditional fields pass through.
/// - A successful `POST`, `PUT`, `PATCH` or `DELETE` removes the entry for its URL.
///
/// The cache is private: it ignores `public`, `private` and `s-maxage`, and
/// keys entries on the URL only, not on `Authorization`. Clear the store when
/// the user changes.
///
/// **Offline.** With `servesStaleWhenOffline`, a `GET` that cannot reach the
/// server (no connection, connection lost, timed out) is answered from the
/// store however old the entry is, as RFC 9111 §4.2.4 allows a disconnected
/// cache, unless the entry said `no-cache` or `must-revalidate`. The answer
/// says so: ``HTTPTypes/HTTPResponse/isServedWhileOffline``. So that there is something
/// to show, `200` responses that say neither freshness nor validators are
/// then stored too (a `200` is cacheable by default, RFC 9111 §3), and used
/// only offline. Pair it with ``DiskCacheStore`` for an app that shows its
/// last data after a relaunch without a network.
///
/// Ordering: inside retry and authentication (a revalidation gets retried and
/// authenticated like any request), outside coalescing (concurrent misses
/// then share one network call).
public struct ResponseCache: HTTPMiddleware {
    /// Where entries are kept.
    public let store: any HTTPCacheStore
    /// The largest body stored.
    public let maximumEntrySize: Int
    /// The largest body read whole to decide whether to store it, when its
    /// length is not announced; a larger one fails with
    /// ``HTTPClientError/responseTooLarge(limit:)``, as it would in the client.
    public let maximumResponseSize: Int
    /// Whether a `GET` that cannot reach the server is answered from the
    /// store, however old the entry (see "Offline" above).
    public let servesStaleWhenOffline: Bool
    private let now: @Sendable () -> Date

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - store: Where entries are kept.
    ///   - maximumEntrySize: The largest body stored.
    ///   - maximumResponseSize: Match the client's `maximumResponseSize`.
    ///   - servesStaleWhenOffline: Whether a `GET` that cannot reach the
    ///     server is answered from the store, marked with
    ///     ``HTTPTypes/HTTPResponse/isServedWhileOffline``.
    ///   - now: The current date, for freshness.
    public init(
        store: any HTTPCacheStore = MemoryCacheStore(byteLimit: 10 * 1024 * 1024),
        maximumEntrySize: Int = 1024 * 1024,
        maximumResponseSize: Int = 16 * 1024 * 1024,
        servesStaleWhenOffline: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.maximumEntrySize = maximumEntrySize
        self.maximumResponseSize = maximumResponseSize
        self.servesStaleWhenOffline = servesStaleWhenOffline
        self.now = now
    }

    /// Answers `request` from the cache when it can, revalidates stale entries, and stores what may be stored.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        let key = Self.key(for: request)
        guard request.method == .get else {
            let (response, responseBody) = try await next(request, body)
            if Self.invalidatingMethods.contains(request.method), (200..<400).contains(response.status.code) {
                await store.removeCachedResponse(for: key)
            }
            return (response, responseBody)
        }
        let directives = CacheControl(request.headerFields)
        let fields = request.headerFields
        guard !directives.noStore, fields[.ifNoneMatch] == nil, fields[.ifModifiedSince] == nil, fields[.range] == nil,
            fields[.upgrade] == nil
        else {
            return try await next(request, body)
        }

        var outgoing = request
        var stale: CachedResponse?
        var stored: CachedResponse?
        if !directives.noCache, let entry = await store.cachedResponse(for: key) {
            let now = now()
            if entry.isFresh(at: now) { return served(entry, at: now) }
            stored = entry
            if entry.canBeRevalidated {
                stale = entry
                outgoing.headerFields[.ifNoneMatch] = entry.response.headerFields[.eTag]
                outgoing.headerFields[.ifModifiedSince] = entry.response.headerFields[.lastModified]
            }
        }

        var response: HTTPResponse
        let responseBody: HTTPBody
        do {
            (response, responseBody) = try await next(outgoing, body)
            // Only this cache says a response was served offline.
            response.headerFields[.baselineServedOffline] = nil
        } catch {
            guard servesStaleWhenOffline, let stored, Self.saysOffline(error) else { throw error }
            let directives = CacheControl(stored.response.headerFields)
            guard !directives.noCache, !directives.mustRevalidate else { throw error }
            var answer = served(stored, at: now())
            answer.0.headerFields[.baselineServedOffline] = "?1"
            return answer
        }
        if response.status == .notModified, let stale {
            await responseBody.releaseUnread()
            guard stale.isSelected(byNotModified: response.headerFields) else {
                // The 304 validates a representation other than the one
                // stored: the entry is outdated, and the request needs the
                // representation itself.
                await store.removeCachedResponse(for: key)
                guard body.isReplayable else { return (response, HTTPBody(Data())) }
                let (fresh, freshBody) = try await next(request, body)
                return try await storing(fresh, body: freshBody, for: key, replacing: false)
            }
            let now = now()
            let updated = stale.revalidated(by: response.headerFields, at: now)
            // The 304 may say the response must no longer be kept (`no-store`, a new `Vary`).
            if isStorable(updated.response) {
                await store.store(updated, for: key)
            } else {
                await store.removeCachedResponse(for: key)
            }
            return served(updated, at: now)
        }
        // Any entry is outdated by a new answer, kept for revalidation or for offline use.
        return try await storing(response, body: responseBody, for: key, replacing: stored != nil)
    }

    /// Stores `response` when it may be stored and returns it; otherwise,
    /// when it replaces an entry (`replacing`), removes that entry, as the
    /// new answer outdates it.
    private func storing(
        _ response: HTTPResponse,
        body responseBody: HTTPBody,
        for key: String,
        replacing: Bool
    ) async throws -> (HTTPResponse, HTTPBody) {
        let tooLarge = responseBody.knownLength.map { $0 > maximumEntrySize } ?? false
        guard isStorable(response), !tooLarge else {
            // A new answer that will not be stored outdates the stale entry;
            // a server error says nothing about it.
            if replacing, response.status.kind != .serverError { await store.removeCachedResponse(for: key) }
            return (response, responseBody)
        }
        let data = try await responseBody.collect(upTo: maximumResponseSize)
        if data.count <= maximumEntrySize {
            await store.store(CachedResponse(response: response, body: data, receivedAt: now()), for: key)
        } else if replacing {
            await store.removeCachedResponse(for: key)
        }
        return (response, HTTPBody(data))
    }

    /// Whether a response to a plain `GET` may be stored.
    private func isStorable(_ response: HTTPResponse) -> Bool {
        guard response.status == .ok else { return false }
        let fields = response.headerFields
        let directives = CacheControl(fields)
        guard !directives.noStore, Vary(fields).allowsURLKeyedStorage else { return false }
        let saysFreshness = directives.maxAge != nil || fields[.expires] != nil
        // Offline, any 200 is worth keeping: it is never served fresh, as its lifetime is zero.
        return saysFreshness || fields[.eTag] != nil || fields[.lastModified] != nil || servesStaleWhenOffline
    }

    /// The stored response as an answer, with its current `Age`.
    private func served(_ entry: CachedResponse, at now: Date) -> (HTTPResponse, HTTPBody) {
        var response = entry.response
        response.headerFields[.age] = String(DeltaSeconds.clamping(entry.age(at: now)))
        response.headerFields[.baselineServedOffline] = nil
        return (response, HTTPBody(entry.body))
    }

    /// Whether `error` says the server could not be reached, rather than
    /// that it answered badly.
    static func saysOffline(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case let .transport(underlying): return saysOffline(underlying)
            case .timedOut: return true
            default: return false
            }
        case let failure as TransportFailure:
            switch failure.reason {
            case .cannotConnect, .connectionLost, .timedOut: return true
            case .malformedResponse, .other: return false
            }
        case let error as URLError:
            return offlineURLErrors.contains(error.code)
        default:
            return false
        }
    }

    private static let offlineURLErrors: Set<URLError.Code> = [
        .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
        .timedOut, .internationalRoamingOff, .dataNotAllowed,
    ]

    private static let invalidatingMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// The entry key: the request's URL.
    static func key(for request: HTTPRequest) -> String {
        request.urlText
    }
}

extension HTTPField.Name {
    /// Set by ``ResponseCache`` on a stored response it served because the
    /// server could not be reached.
    static let baselineServedOffline = HTTPField.Name("Baseline-Served-Offline")!
}

extension HTTPResponse {
    /// Whether ``ResponseCache`` answered from its store because the server
    /// could not be reached: the data may be out of date, and a screen
    /// should say so.
    public var isServedWhileOffline: Bool {
        headerFields[.baselineServedOffline] == "?1"
    }
}

extension Response {
    /// Whether ``ResponseCache`` answered from its store because the server
    /// could not be reached (``HTTPTypes/HTTPResponse/isServedWhileOffline``).
    public var isServedWhileOffline: Bool { head.isServedWhileOffline }
}
