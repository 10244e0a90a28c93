import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes

/// Where a generated client's requests go: its server URL, parsed once, with
/// each request's path appended.
struct RequestURL: Sendable, Equatable {
    let scheme: String
    let authority: String?
    /// The server URL's escaped path, without a trailing slash.
    let basePath: String
    /// The server URL's escaped query, kept ahead of a request's own.
    let baseQuery: Substring?

    /// The parts of `baseURL`.
    ///
    /// - Throws: `HTTPClientError.invalidRequest(reason:)` when `baseURL` has
    ///   no scheme or host (the generated client's default server URL, `/`,
    ///   is such a URL).
    init(_ baseURL: URL) throws {
        // Checked first: HTTPTypes traps on a URL without a scheme.
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            components.scheme != nil, let host = components.host, !host.isEmpty, components.string != nil
        else {
            throw HTTPClientError.invalidRequest(
                reason: "The server URL \(baseURL.absoluteString) is not an absolute URL with a host"
            )
        }
        let origin = HTTPRequest(method: .get, url: baseURL)
        scheme = origin.scheme ?? "https"
        authority = origin.authority
        var path = components.percentEncodedPath
        if path.hasSuffix("/") { path.removeLast() }
        basePath = path
        baseQuery = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0[...] }
    }

    /// `request` with the scheme and authority of `baseURL`, and its path
    /// below the base's path: `https://host/v1` and `/items?tag=a` make
    /// `https://host/v1/items?tag=a`. Appended rather than resolved, as the
    /// OpenAPI runtime's own transports do (RFC 3986 resolution would drop
    /// `v1`); a trailing slash on the base is not doubled, and a query on
    /// the base is kept ahead of the request's.
    static func request(_ request: HTTPRequest, at baseURL: URL) throws -> HTTPRequest {
        try RequestURL(baseURL).request(request)
    }

    /// `request` below this server URL (see ``request(_:at:)``).
    func request(_ request: HTTPRequest) -> HTTPRequest {
        let target = request.path ?? "/"
        let mark = target.firstIndex(of: "?") ?? target.endIndex
        let path = target[..<mark]
        var joined = basePath
        if !path.hasPrefix("/") { joined += "/" }
        joined += path
        var queries: [Substring] = []
        if let baseQuery { queries.append(baseQuery) }
        if mark < target.endIndex {
            let query = target[target.index(after: mark)...]
            if !query.isEmpty { queries.append(query) }
        }
        if !queries.isEmpty {
            joined += "?"
            joined += queries.joined(separator: "&")
        }

        var result = request
        result.scheme = scheme
        result.authority = authority
        result.path = joined
        return result
    }

    /// The server URL a transport last sent to, parsed: a generated client
    /// passes the same one with every request, and parsing it took a tenth
    /// of a small request's time.
    final class Cache: Sendable {
        private let latest = LockedValue<(url: URL, parts: RequestURL)?>(nil)

        func parts(of url: URL) throws -> RequestURL {
            if let latest = latest.current, latest.url == url { return latest.parts }
            let parts = try RequestURL(url)
            latest.withLock { $0 = (url, parts) }
            return parts
        }
    }
}
