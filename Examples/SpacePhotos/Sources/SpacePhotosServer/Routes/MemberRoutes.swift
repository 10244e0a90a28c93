import Foundation
import HTTPTypes
import Hummingbird

/// `GET /members/me` with `Authorization: Bearer <token>` → the member.
struct MemberRoutes: Sendable {
    struct Member: ResponseEncodable {
        var id: String
        var nickname: String
        var birthday: String
    }

    let accounts: [String: Account]
    let signer: TokenSigner
    let now: @Sendable () -> Date

    func add(to router: Router<ServerRequestContext>) {
        router.get("members/me") { request, _ in
            let account = try authenticate(request)
            return Member(id: account.id, nickname: account.nickname, birthday: account.birthday)
        }
    }

    /// The account a request's bearer token names; 401 otherwise.
    func authenticate(_ request: Request) throws -> Account {
        guard let authorization = request.headers[.authorization] else {
            throw APIError.unauthenticated("Missing bearer token.")
        }
        let prefix = "Bearer "
        guard authorization.count > prefix.count,
            authorization.prefix(prefix.count).lowercased() == prefix.lowercased()
        else {
            throw APIError.unauthenticated("The Authorization header is not a bearer token.")
        }
        let token = String(authorization.dropFirst(prefix.count))
        let subject: String
        do {
            subject = try signer.verify(token, now: now())
        } catch .expired {
            throw APIError.unauthenticated("The token has expired.")
        } catch {
            throw APIError.unauthenticated("The token is not valid.")
        }
        guard let account = accounts[subject] else {
            throw APIError.unauthenticated("The token's member no longer exists.")
        }
        return account
    }
}
