import Foundation
import HTTPTypes
import Hummingbird

/// `POST /auth/login`: `{ "id", "password" }` → `{ "idToken", "expiresIn", "refreshToken" }`.
///
/// `POST /auth/refresh`: `{ "refreshToken" }` → the same answer, with a new
/// refresh token: each is usable once (see ``RefreshTokenStore``). A refresh
/// token that is unknown, expired or used before gets 401 `invalid_refresh_token`.
struct AuthRoutes: Sendable {
    struct LoginRequest: Decodable {
        var id: String
        var password: String
    }

    struct RefreshRequest: Decodable {
        var refreshToken: String
    }

    struct LoginResponse: ResponseEncodable {
        var idToken: String
        var expiresIn: Int
        var refreshToken: String
    }

    let accounts: [String: Account]
    let hasher: PasswordHasher
    let signer: TokenSigner
    let limiter: LoginRateLimiter
    let refreshTokens: RefreshTokenStore
    let now: @Sendable () -> Date
    /// Checked against when the id is unknown, so that an unknown id takes as
    /// long as a wrong password and ids cannot be told apart by timing.
    let decoyHash: String

    func add(to router: Router<ServerRequestContext>) {
        router.post("auth/login") { request, context in
            try await logIn(request: request, context: context)
        }
        router.post("auth/refresh") { request, context in
            try await refresh(request: request, context: context)
        }
    }

    func logIn(request: Request, context: ServerRequestContext) async throws -> LoginResponse {
        let body = try await request.decodeJSONBody(as: LoginRequest.self, context: context)
        guard body.id.utf8.count <= 256 else {
            throw APIError(.badRequest, code: "bad_request", message: "The id is too long.")
        }
        let now = now()
        if let seconds = await limiter.admit(body.id, now: now) {
            throw APIError(
                .tooManyRequests,
                code: "rate_limited",
                message: "Too many failed logins for this id. Try again in \(seconds) s.",
                headers: [.retryAfter: String(seconds)]
            )
        }
        let account = accounts[body.id]
        let matches = try await hasher.verify(body.password, against: account?.passwordHash ?? decoyHash)
        guard let account, matches else {
            // Counted as a failure when it was admitted.
            context.logger.notice("Failed login", metadata: ["user.id": "\(body.id)"])
            throw APIError.invalidCredentials()
        }
        await limiter.recordSuccess(for: account.id)
        return LoginResponse(
            idToken: signer.issue(for: account.id, now: now),
            expiresIn: Int(signer.lifetime.components.seconds),
            refreshToken: await refreshTokens.issue(for: account.id, now: now)
        )
    }

    func refresh(request: Request, context: ServerRequestContext) async throws -> LoginResponse {
        let body = try await request.decodeJSONBody(as: RefreshRequest.self, context: context)
        let now = now()
        let invalid = APIError(
            .unauthorized,
            code: "invalid_refresh_token",
            message: "The refresh token is not valid: it is unknown, expired, or was used before. Log in again.",
            headers: [.wwwAuthenticate: "Bearer"]
        )
        guard body.refreshToken.utf8.count <= 256 else { throw invalid }
        let rotated: (subject: String, token: String)
        do {
            rotated = try await refreshTokens.rotate(body.refreshToken, now: now)
        } catch {
            throw invalid
        }
        // The member may have gone since the token was issued.
        guard let account = accounts[rotated.subject] else { throw invalid }
        return LoginResponse(
            idToken: signer.issue(for: account.id, now: now),
            expiresIn: Int(signer.lifetime.components.seconds),
            refreshToken: rotated.token
        )
    }
}
