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
    private let now: @Sendable () -> Date

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - store: Where entries are kept.
    ///   - maximumEntrySize: The largest body stored.
    ///   - maximumResponseSize: Match the client's `maximumResponseSize`.
    ///   - now: The current date, for freshness.
    public init(
        store: any HTTPCacheStore = MemoryCacheStore(byteLimit: 10 * 1024 * 1024),
        maximumEntrySize: Int = 1024 * 1024,
        maximumResponseSize: Int = 16 * 1024 * 1024,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.maximumEntrySize = maximumEntrySize
        self.maximumResponseSize = maximumResponseSize
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
        guard !directives.noStore, fields[.ifNoneMatch] == nil, fields[.ifModifiedSince] == nil, fields[.range] == nil
        else {
            return try await next(request, body)
        }

        var outgoing = request
        var stale: CachedResponse?
        if !directives.noCache, let entry = await store.cachedResponse(for: key) {
            let now = now()
            if entry.isFresh(at: now) { return served(entry, at: now) }
            if entry.canBeRevalidated {
                stale = entry
                outgoing.headerFields[.ifNoneMatch] = entry.response.headerFields[.eTag]
                outgoing.headerFields[.ifModifiedSince] = entry.response.headerFields[.lastModified]
            }
        }

        let (response, responseBody) = try await next(outgoing, body)
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
        return try await storing(response, body: responseBody, for: key, replacing: stale != nil)
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
        return saysFreshness || fields[.eTag] != nil || fields[.lastModified] != nil
    }

    /// The stored response as an answer, with its current `Age`.
    private func served(_ entry: CachedResponse, at now: Date) -> (HTTPResponse, HTTPBody) {
        var response = entry.response
        response.headerFields[.age] = String(DeltaSeconds.clamping(entry.age(at: now)))
        return (response, HTTPBody(entry.body))
    }

    private static let invalidatingMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// The entry key: the request's URL.
    static func key(for request: HTTPRequest) -> String {
        request.urlText
    }
}
