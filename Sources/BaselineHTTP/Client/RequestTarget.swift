import Foundation
import HTTPTypes
import HTTPTypesFoundation

/// A client's base URL taken apart once, and the request targets
/// (`/api/photos?page=2`) made from it.
///
/// A target is escaped as `URLComponents` escapes a path and query items
/// (the same characters are kept), but written straight into one string: a
/// `URLComponents` pass per request costs a copy of its query items and
/// a string per part, a visible share of a small request's allocations.
struct RequestTarget: Sendable {
    /// The base's scheme and authority, which every request shares.
    let scheme: String
    let authority: String?
    /// The base's escaped path, without a trailing slash.
    let basePath: String
    /// The base's escaped query, kept ahead of a request's own items.
    let baseQuery: String?

    /// The parts of `baseURL`, or `nil` when it is not an absolute URL.
    init?(baseURL: URL) {
        let origin = HTTPRequest(method: .get, url: baseURL)
        guard let scheme = origin.scheme,
            let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        else { return nil }
        let path = components.percentEncodedPath
        self.scheme = scheme
        self.authority = origin.authority
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        self.baseQuery = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The escaped path and query for `path` below the base path, with the
    /// base's query and then `query`.
    func target(path: String, query: [URLQueryItem]) -> String {
        // A path without interpolated values never throws.
        (try? target(path: RequestPath(path), query: query)) ?? "/"
    }

    /// The escaped path and query for `path` below the base path, with the
    /// base's query and then `query`; its interpolated values are escaped as
    /// segments (see ``RequestPath``).
    func target(path: RequestPath, query: [URLQueryItem]) throws -> String {
        let text = path.text
        var target = String()
        target.reserveCapacity(basePath.utf8.count + text.utf8.count + 1 + estimatedLength(of: query))
        target += basePath
        if !text.hasPrefix("/"), !text.isEmpty { target += "/" }
        try path.appendEscaped(keeping: Self.isAllowedInPath, to: &target)
        if target.isEmpty { target = "/" }
        var separator = "?"
        if let baseQuery {
            target += separator
            target += baseQuery
            separator = "&"
        }
        for item in query {
            target += separator
            separator = "&"
            Self.append(item.name, keeping: Self.isAllowedInQueryItem, to: &target)
            if let value = item.value {
                target += "="
                Self.append(value, keeping: Self.isAllowedInQueryItem, to: &target)
            }
        }
        return target
    }

    private func estimatedLength(of query: [URLQueryItem]) -> Int {
        var length = (baseQuery?.utf8.count ?? 0) + 1
        for item in query {
            length += item.name.utf8.count + (item.value?.utf8.count ?? 0) + 2
        }
        return length
    }

    /// Appends `text`, with every byte that `isAllowed` refuses written as `%XX`.
    static func append(_ text: String, keeping isAllowed: (UInt8) -> Bool, to target: inout String) {
        guard !text.utf8.allSatisfy(isAllowed) else {
            target += text
            return
        }
        var escaped = [UInt8]()
        escaped.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isAllowed(byte) {
                escaped.append(byte)
            } else {
                appendPercentEncoded(byte, to: &escaped)
            }
        }
        target += String(decoding: escaped, as: UTF8.self)
    }

    /// Appends `byte` as `%XX`.
    static func appendPercentEncoded(_ byte: UInt8, to escaped: inout [UInt8]) {
        func hex(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
        }
        escaped.append(UInt8(ascii: "%"))
        escaped.append(hex(byte >> 4))
        escaped.append(hex(byte & 0xF))
    }

    /// RFC 3986's unreserved characters: never escaped.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A path keeps the unreserved characters, the sub-delimiters, `:`, `@` and `/`.
    static func isAllowedInPath(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            true
        default: false
        }
    }

    /// A query item's name or value keeps what a path keeps and `?`, but not
    /// `&` or `=`, which separate items (`+` stays, as `URLComponents` leaves it).
    static func isAllowedInQueryItem(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "="): false
        case UInt8(ascii: "?"): true
        default: isAllowedInPath(byte)
        }
    }
}
