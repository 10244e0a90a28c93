import Foundation
import HTTPTypes

/// Sends `Authorization: Basic <base64(username:password)>` (RFC 7617).
///
/// ```swift
/// let client = HTTPClient(baseURL: intranetURL, middleware: [
///     BasicAuthentication(username: "build-bot", password: secret, sends: .afterChallenge),
/// ])
/// ```
///
/// By default the credentials go with every request. With ``Sending/afterChallenge``
/// they are sent only when the server asks: a 401 whose `WWW-Authenticate`
/// offers the `Basic` scheme gets the request sent once more, with credentials
/// (what `URLSession` does with an authentication challenge). That costs a
/// round trip per request, but keeps the password off requests that need none.
/// A second 401 is returned as it is, and a request whose body cannot be sent
/// again is not retried.
///
/// A request that already has an `Authorization` field, or that
/// `authenticates` declines, passes through untouched. Basic credentials are
/// only encoded, not encrypted: use HTTPS. RFC 7617 forbids a `:` in the
/// username; one is sent as given and the server will misread it.
///
/// Ordering: like ``BearerAuthentication``, inside retry, outside cache and coalescing.
public struct BasicAuthentication: HTTPMiddleware {
    /// When the credentials are sent.
    public enum Sending: Sendable {
        /// With every request.
        case always
        /// Only after a 401 that offers the `Basic` scheme, retrying once.
        case afterChallenge
    }

    private let credentials: String
    private let sending: Sending
    private let authenticates: @Sendable (HTTPRequest) -> Bool

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - username: The user ID.
    ///   - password: The password.
    ///   - sends: When to send the credentials.
    ///   - authenticates: Which requests may get credentials; by default all.
    public init(
        username: String,
        password: String,
        sends: Sending = .always,
        authenticates: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
    ) {
        self.credentials = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        self.sending = sends
        self.authenticates = authenticates
    }

    /// Adds the Basic credentials to `request`, at once or after a challenge, as configured.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        guard request.headerFields[.authorization] == nil, authenticates(request) else {
            return try await next(request, body)
        }
        var authorized = request
        authorized.headerFields[.authorization] = credentials
        switch sending {
        case .always:
            return try await next(authorized, body)
        case .afterChallenge:
            let (response, responseBody) = try await next(request, body)
            guard response.status == .unauthorized, body.isReplayable,
                Self.offersBasic(response.headerFields[values: .wwwAuthenticate])
            else { return (response, responseBody) }
            await responseBody.releaseUnread()
            return try await next(authorized, body)
        }
    }

    /// Whether the `WWW-Authenticate` values offer the Basic scheme. A value
    /// may list several challenges (`Bearer realm="a", Basic realm="b"`), so
    /// it is split at the commas outside quoted strings; a piece that starts
    /// with a lone token (no `=`) starts a challenge with that scheme.
    static func offersBasic(_ values: [String]) -> Bool {
        for value in values {
            var piece = ""
            var inQuotes = false
            var escaped = false
            for character in value + "," {
                if escaped {
                    escaped = false
                } else if inQuotes && character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes.toggle()
                } else if character == ",", !inQuotes {
                    let scheme = piece.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
                    if !scheme.contains("="), scheme.lowercased() == "basic" { return true }
                    piece = ""
                    continue
                }
                piece.append(character)
            }
        }
        return false
    }
}
