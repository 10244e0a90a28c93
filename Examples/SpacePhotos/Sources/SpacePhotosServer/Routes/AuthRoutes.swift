import Foundation
import HTTPTypes
import Hummingbird

/// `POST /auth/login`: `{ "id", "password" }` → `{ "idToken", "expiresIn" }`.
struct AuthRoutes: Sendable {
    struct LoginRequest: Decodable {
        var id: String
        var password: String
    }

    struct LoginResponse: ResponseEncodable {
        var idToken: String
        var expiresIn: Int
    }

    let accounts: [String: Account]
    let hasher: PasswordHasher
    let signer: TokenSigner
    let limiter: LoginRateLimiter
    let now: @Sendable () -> Date
    /// Checked against when the id is unknown, so that an unknown id takes as
    /// long as a wrong password and ids cannot be told apart by timing.
    let decoyHash: String

    func add(to router: Router<ServerRequestContext>) {
        router.post("auth/login") { request, context in
            try await logIn(request: request, context: context)
        }
    }

    func logIn(request: Request, context: ServerRequestContext) async throws -> LoginResponse {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        guard body.id.utf8.count <= 256 else {
            throw APIError(.badRequest, code: "bad_request", message: "The id is too long.")
        }
        let now = now()
        if let seconds = await limiter.admit(body.id, now: now) {
            throw APIError(
                .tooManyRequests, code: "rate_limited",
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
            expiresIn: Int(signer.lifetime.components.seconds)
        )
    }
}
