import Foundation
import HTTPTypes
import Hummingbird

/// Redirects, for testing a client's redirect policy:
///
/// - `GET /redirect/{n}`: redirects to `/redirect/{n-1}`, and
///   `/redirect/0` answers 200 `{"redirected": true}` (n at most 50).
/// - `GET /redirect-to?url=<url>`: redirects to `url`, an absolute `http`
///   or `https` URL or a path on this server (`/…`). Used to test that a
///   cross-origin redirect drops `Authorization` (see `GET /echo/headers`).
///
/// Both take `?status=` 301, 302 (default), 303, 307 or 308.
struct RedirectRoutes: Sendable {
    struct Arrived: ResponseEncodable {
        var redirected: Bool
    }

    static let maximumHops = 50
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    func add(to router: Router<ServerRequestContext>) {
        router.get("redirect/:hops") { request, context -> Response in
            guard let hops = context.parameters.get("hops", as: Int.self), (0...Self.maximumHops).contains(hops) else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "The number of hops must be an integer from 0 to \(Self.maximumHops)."
                )
            }
            let status = try Self.status(of: request)
            guard hops > 0 else {
                return try Arrived(redirected: true).response(from: request, context: context)
            }
            // Keep the status across the chain, so every hop is the same kind.
            let query = request.uri.queryParameters.get("status").map { "?status=\($0)" } ?? ""
            return Self.redirect(to: "/redirect/\(hops - 1)\(query)", status: status)
        }
        router.get("redirect-to") { request, _ -> Response in
            guard let target = request.uri.queryParameters.get("url"), Self.isAllowedTarget(target) else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "url must be an absolute http(s) URL or a path starting with a single /."
                )
            }
            return Self.redirect(to: target, status: try Self.status(of: request))
        }
    }

    static func status(of request: Request) throws -> HTTPResponse.Status {
        guard let code = try request.integerParameter("status", in: 300...399) else { return .found }
        guard statuses.contains(code) else {
            throw APIError(.badRequest, code: "bad_request", message: "status must be 301, 302, 303, 307 or 308.")
        }
        return HTTPResponse.Status(code: code)
    }

    static func redirect(to location: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.location: location])
    }

    /// Absolute http(s) URLs with a host, or paths on this server. No
    /// scheme-relative `//host`, other schemes, spaces or control
    /// characters (which could split the header).
    static func isAllowedTarget(_ target: String) -> Bool {
        guard (1...2_048).contains(target.utf8.count),
            target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let url = URL(string: target)
        else { return false }
        if target.hasPrefix("/") { return !target.hasPrefix("//") && url.scheme == nil }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(url.host ?? "").isEmpty
    }
}
