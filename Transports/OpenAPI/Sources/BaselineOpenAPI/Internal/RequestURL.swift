import BaselineHTTP
import Foundation
import HTTPTypes

/// Where a generated client's request goes: its server URL with the
/// request's path appended.
enum RequestURL {
    /// `request` with the scheme and authority of `baseURL`, and its path
    /// below the base's path: `https://host/v1` and `/items?tag=a` make
    /// `https://host/v1/items?tag=a`. Appended rather than resolved, as the
    /// OpenAPI runtime's own transports do (RFC 3986 resolution would drop
    /// `v1`); a trailing slash on the base is not doubled, and a query on
    /// the base is kept ahead of the request's.
    ///
    /// - Throws: `HTTPClientError.invalidRequest(reason:)` when `baseURL` has
    ///   no scheme or host (the generated client's default server URL, `/`,
    ///   is such a URL).
    static func request(_ request: HTTPRequest, at baseURL: URL) throws -> HTTPRequest {
        // Checked first: HTTPTypes traps on a URL without a scheme.
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            components.scheme != nil, let host = components.host, !host.isEmpty, components.string != nil
        else {
            throw HTTPClientError.invalidRequest(
                reason: "The server URL \(baseURL.absoluteString) is not an absolute URL with a host"
            )
        }
        let origin = HTTPRequest(method: request.method, url: baseURL)
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") { basePath.removeLast() }

        let target = request.path ?? "/"
        let mark = target.firstIndex(of: "?") ?? target.endIndex
        let path = target[..<mark]
        var joined = basePath
        if !path.hasPrefix("/") { joined += "/" }
        joined += path
        var queries: [Substring] = []
        if let baseQuery = components.percentEncodedQuery, !baseQuery.isEmpty { queries.append(baseQuery[...]) }
        if mark < target.endIndex {
            let query = target[target.index(after: mark)...]
            if !query.isEmpty { queries.append(query) }
        }
        if !queries.isEmpty {
            joined += "?"
            joined += queries.joined(separator: "&")
        }

        var result = request
        result.scheme = origin.scheme
        result.authority = origin.authority
        result.path = joined
        return result
    }
}
