import Foundation
import HTTPTypes

/// A response held by an ``HTTPCacheStore``: its head, its whole body, and
/// when it arrived (or was last revalidated).
public struct CachedResponse: Sendable {
    /// The response head, as received or as updated by a revalidation.
    public var response: HTTPResponse
    /// The body.
    public var body: Data
    /// When the response, or the 304 that last revalidated it, arrived.
    public var receivedAt: Date

    /// Creates an entry.
    public init(response: HTTPResponse, body: Data, receivedAt: Date) {
        self.response = response
        self.body = body
        self.receivedAt = receivedAt
    }

    /// An estimate of the memory the entry takes: the body and the header fields.
    public var cost: Int {
        body.count + response.headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count }
    }
}

extension CachedResponse {
    /// How long the response is fresh, from `max-age`, else from `Expires`
    /// against `Date`; zero when it says neither, or says `no-cache`. No
    /// heuristic freshness: a response that does not say is revalidated.
    var freshnessLifetime: TimeInterval {
        let directives = CacheControl(response.headerFields)
        if directives.noCache { return 0 }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        guard let expiresText = response.headerFields[.expires] else { return 0 }
        // An invalid Expires (often "0") means already expired.
        guard let expires = HTTPDate.parse(expiresText) else { return 0 }
        let date = response.headerFields[.date].flatMap(HTTPDate.parse) ?? receivedAt
        return max(0, expires.timeIntervalSince(date))
    }

    /// The response's age at `now`: the `Age` it arrived with, plus the time
    /// since it arrived (RFC 9111 §4.2.3, leaving out the request's own delay).
    func age(at now: Date) -> TimeInterval {
        let initial = response.headerFields[.age].flatMap { TimeInterval($0) } ?? 0
        return max(0, initial) + max(0, now.timeIntervalSince(receivedAt))
    }

    func isFresh(at now: Date) -> Bool {
        age(at: now) < freshnessLifetime
    }

    /// Whether the entry has a validator, so a stale copy can be revalidated.
    var canBeRevalidated: Bool {
        response.headerFields[.eTag] != nil || response.headerFields[.lastModified] != nil
    }

    /// The entry after a 304 with `fields` arrived at `now`: the 304's header
    /// fields replace the stored ones of the same name (RFC 9111 §4.3.4).
    func revalidated(by fields: HTTPFields, at now: Date) -> CachedResponse {
        var updated = self
        // The 304 says how old the response is now; the stored Age is outdated.
        updated.response.headerFields[.age] = nil
        let ignored: Set<HTTPField.Name> = [.contentLength, .contentEncoding, .transferEncoding]
        for name in Set(fields.map(\.name)) where !ignored.contains(name) {
            updated.response.headerFields[values: name] = fields[values: name]
        }
        updated.receivedAt = now
        return updated
    }
}
