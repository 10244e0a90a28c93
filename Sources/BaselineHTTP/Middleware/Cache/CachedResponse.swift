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
    /// Finite and never negative, whatever the fields say.
    var freshnessLifetime: TimeInterval {
        let directives = CacheControl(response.headerFields)
        if directives.noCache { return 0 }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        // Several Expires fields join into one value that is no date: expired.
        guard let expiresText = response.headerFields[.expires] else { return 0 }
        // An invalid Expires (often "0") means already expired.
        guard let expires = HTTPDate.parse(expiresText) else { return 0 }
        let date = response.headerFields[.date].flatMap(HTTPDate.parse) ?? receivedAt
        let lifetime = expires.timeIntervalSince(date)
        return lifetime.isFinite ? max(0, lifetime) : 0
    }

    /// The `Age` the response arrived with: delta-seconds, at most 2^31; 0
    /// when it has none or it is not delta-seconds (`-1`, `1e19`, `inf`,
    /// `0x10`), as RFC 9111 §5.1 gives no other meaning to such a value.
    var initialAge: Int {
        response.headerFields[values: .age].first.flatMap { DeltaSeconds.parse($0.trimmingWhitespace()) } ?? 0
    }

    /// The response's age at `now`: the `Age` it arrived with, plus the time
    /// since it arrived (RFC 9111 §4.2.3, leaving out the request's own
    /// delay), in `0...2^31` seconds (§1.2.2: a sum that overflows counts as 2^31).
    func age(at now: Date) -> TimeInterval {
        let resident = now.timeIntervalSince(receivedAt)
        let age = TimeInterval(initialAge) + (resident.isFinite ? max(0, resident) : 0)
        return min(age, TimeInterval(DeltaSeconds.maximum))
    }

    func isFresh(at now: Date) -> Bool {
        age(at: now) < freshnessLifetime
    }

    /// Whether the entry has a validator, so a stale copy can be revalidated.
    var canBeRevalidated: Bool {
        response.headerFields[.eTag] != nil || response.headerFields[.lastModified] != nil
    }

    /// Whether a 304 with `fields` is about this entry (RFC 9111 §4.3.4): it
    /// names no entity tag, or one that matches the entry's (weakly, as
    /// `If-None-Match` compares). A 304 naming another tag validates a
    /// representation the cache does not hold.
    func isSelected(byNotModified fields: HTTPFields) -> Bool {
        guard let answered = fields[.eTag] else { return true }
        guard let stored = response.headerFields[.eTag] else { return false }
        guard let answeredTag = EntityTag(answered), let storedTag = EntityTag(stored) else {
            // A malformed tag can only be the same text echoed back.
            return answered == stored
        }
        return answeredTag.matchesWeakly(storedTag)
    }

    /// Header fields a 304 never updates in a stored response (RFC 9111
    /// §3.1 and §3.2): the 304's own framing (`Content-Length`,
    /// `Transfer-Encoding`), the connection's fields, and those describing
    /// the body as stored (`Content-Encoding`, `Content-Range`), since the
    /// body kept is already decoded and whole.
    static let fieldsNotUpdatedByNotModified: Set<HTTPField.Name> = {
        var names: Set<HTTPField.Name> = [
            .contentLength, .contentEncoding, .contentRange, .transferEncoding, .connection, .te, .upgrade,
            .proxyAuthenticate, .proxyAuthenticationInfo, .proxyAuthorization,
        ]
        for name in ["Keep-Alive", "Proxy-Connection"] {
            if let name = HTTPField.Name(name) { names.insert(name) }
        }
        return names
    }()

    /// The entry after a 304 with `fields` arrived at `now`: the 304's header
    /// fields replace the stored ones of the same name (RFC 9111 §4.3.4),
    /// except ``fieldsNotUpdatedByNotModified`` and those the 304's
    /// `Connection` field names.
    func revalidated(by fields: HTTPFields, at now: Date) -> CachedResponse {
        var updated = self
        // The 304 says how old the response is now; the stored Age is outdated.
        updated.response.headerFields[.age] = nil
        var ignored = Self.fieldsNotUpdatedByNotModified
        for value in fields[values: .connection] {
            for option in value.splitScalars(at: ",") {
                if let name = HTTPField.Name(String(option.trimmingWhitespace())) { ignored.insert(name) }
            }
        }
        for name in Set(fields.map(\.name)) where !ignored.contains(name) {
            updated.response.headerFields[values: name] = fields[values: name]
        }
        updated.receivedAt = now
        return updated
    }
}
