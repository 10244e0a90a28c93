import Foundation
import HTTPTypes
import HTTPTypesFoundation

/// Which redirects a client follows.
///
/// ```swift
/// var configuration = HTTPClient.Configuration(baseURL: url)
/// configuration.redirectPolicy = .follow(maximum: 3)
/// configuration.redirectPolicy = .never                  // 3xx responses come back as they are
/// configuration.redirectPolicy = .custom(maximum: 5) { response, next in
///     next.url?.host == "api.example.com" ? next : nil  // stay on one host
/// }
/// ```
///
/// Whatever the policy, a redirect to another origin (scheme, host or port)
/// drops `Authorization`, `Proxy-Authorization` and `Cookie`, so credentials
/// meant for one server never reach another.
public struct RedirectPolicy: Sendable {
    /// Redirects followed at most; one more fails with ``HTTPClientError/tooManyRedirects(limit:)``.
    public let maximumRedirects: Int
    let decide: @Sendable (_ response: HTTPResponse, _ next: HTTPRequest) -> HTTPRequest?

    /// Follows up to `maximum` redirects.
    public static func follow(maximum: Int = 10) -> RedirectPolicy {
        RedirectPolicy(maximumRedirects: maximum) { _, next in next }
    }

    /// Follows none: a 3xx response is the response.
    public static let never = RedirectPolicy(maximumRedirects: 0) { _, _ in nil }

    /// Asks `decide` about each redirect: it returns the request to send
    /// (the proposed one, or a changed copy), or `nil` to stop and return the
    /// 3xx response.
    public static func custom(
        maximum: Int = 10,
        _ decide: @escaping @Sendable (_ response: HTTPResponse, _ next: HTTPRequest) -> HTTPRequest?
    ) -> RedirectPolicy {
        RedirectPolicy(maximumRedirects: maximum, decide: decide)
    }
}

/// Follows redirects by a ``RedirectPolicy``. The client puts it innermost,
/// next to the transport (which never follows redirects itself), so
/// middleware sees the final response and a retry retries the whole chain.
struct RedirectMiddleware: HTTPMiddleware {
    let policy: RedirectPolicy

    /// Headers that carry credentials for one origin.
    static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        var request = request
        var body = body
        var redirects = 0
        while true {
            let (response, responseBody) = try await next(request, body)
            guard policy.maximumRedirects > 0,
                let (proposed, proposedBody) = Self.redirect(from: request, body: body, response: response)
            else { return (response, responseBody) }
            guard let chosen = policy.decide(response, proposed) else { return (response, responseBody) }
            guard redirects < policy.maximumRedirects else {
                responseBody.discard()
                throw HTTPClientError.tooManyRedirects(limit: policy.maximumRedirects)
            }
            responseBody.discard()
            redirects += 1
            request = chosen
            body = proposedBody
        }
    }

    /// The request a redirect asks for, or nil when `response` is not one
    /// that can be followed.
    static func redirect(
        from request: HTTPRequest,
        body: HTTPBody?,
        response: HTTPResponse
    ) -> (HTTPRequest, HTTPBody?)? {
        let code = response.status.code
        guard [301, 302, 303, 307, 308].contains(code),
            let location = response.headerFields[.location],
            let current = request.url,
            let target = URL(string: location, relativeTo: current)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }

        var method = request.method
        var body = body
        var fields = request.headerFields
        // 303 always, and 301/302 after a POST (as browsers do), turn into a GET without a body.
        if code == 303 && method != .head || (code == 301 || code == 302) && method == .post {
            method = .get
            body = nil
            fields[.contentType] = nil
            fields[.contentLength] = nil
        } else if let body, !body.isReplayable {
            // 307/308 resend the body; a consumed stream cannot be.
            return nil
        }
        if !sameOrigin(current, target) {
            for name in credentialFields { fields[name] = nil }
        }
        return (HTTPRequest(method: method, url: target, headerFields: fields), body)
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
