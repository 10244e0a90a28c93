import Foundation
import HTTPTypes
import Hummingbird

/// `GET /basic/profile` with `Authorization: Basic` (a task
/// delegate answering a Basic challenge): the member's `{"id", "nickname"}`.
///
/// Without valid credentials: 401 with `WWW-Authenticate: Basic
/// realm="spacephotos"`, the challenge clients answer. Passwords are checked
/// like logins (bcrypt, the same failure counting and lockout), since Basic
/// auth is another way to guess them.
struct BasicAuthRoutes: Sendable {
    struct Profile: ResponseEncodable {
        var id: String
        var nickname: String
    }

    static let challenge = "Basic realm=\"spacephotos\""

    let accounts: [String: Account]
    let hasher: PasswordHasher
    let limiter: LoginRateLimiter
    let now: @Sendable () -> Date
    /// Checked against for unknown ids, as in ``AuthRoutes``.
    let decoyHash: String

    func add(to router: Router<ServerRequestContext>) {
        router.get("basic/profile") { request, context -> Profile in
            guard let header = request.headers[.authorization] else {
                throw Self.unauthorized("unauthenticated", "Basic credentials are required.")
            }
            guard let credentials = BasicCredentials(authorization: header),
                credentials.id.utf8.count <= 256, credentials.password.utf8.count <= 1_024
            else {
                throw Self.unauthorized("unauthenticated", "The Authorization header is not valid Basic credentials.")
            }
            if let seconds = await limiter.admit(credentials.id, now: now()) {
                throw APIError(
                    .tooManyRequests,
                    code: "rate_limited",
                    message: "Too many failed logins for this id. Try again in \(seconds) s.",
                    headers: [.retryAfter: String(seconds)]
                )
            }
            let account = accounts[credentials.id]
            let matches = try await hasher.verify(credentials.password, against: account?.passwordHash ?? decoyHash)
            guard let account, matches else {
                context.logger.notice("Failed Basic login", metadata: ["user.id": "\(credentials.id)"])
                throw Self.unauthorized("invalid_credentials", "The id or password is incorrect.")
            }
            await limiter.recordSuccess(for: account.id)
            return Profile(id: account.id, nickname: account.nickname)
        }
    }

    static func unauthorized(_ code: String, _ message: String) -> APIError {
        APIError(.unauthorized, code: code, message: message, headers: [.wwwAuthenticate: challenge])
    }
}
