import BaselineHTTP
import BaselineTesting
import Foundation
import SpacePhotosCore
import SpacePhotosServer
import Testing

@testable import spacephotos

/// The login flow on the authentication middleware: a rejected ID token is
/// refreshed through `POST /auth/refresh`, once for every request waiting.
@Suite("Session tokens on BearerAuthentication (real server)", .timeLimit(.minutes(2)))
struct SessionRefreshIntegrationTests {
    struct Session {
        let tokens: SessionTokens
        let auth: AuthService
        let members: MemberAPI
        let directory: TemporaryDirectory
    }

    func session(_ server: RunningServer) throws -> Session {
        let directory = try TemporaryDirectory()
        let plain = HTTPClient(baseURL: server.baseURL, transport: URLSessionTransport())
        let authAPI = AuthAPI(client: plain)
        let tokens = SessionTokens(
            directory: directory.url,
            authAPI: authAPI
        )
        let authed = HTTPClient(
            baseURL: server.baseURL,
            transport: URLSessionTransport(),
            middleware: [BearerAuthentication(provider: tokens)]
        )
        let members = MemberAPI(client: authed)
        return Session(
            tokens: tokens,
            auth: AuthService(authAPI: authAPI, memberAPI: members, tokens: tokens),
            members: members,
            directory: directory
        )
    }

    @Test func aRejectedTokenIsRefreshedOnceForConcurrentRequests() async throws {
        try await withServer { server in
            let session = try session(server)
            try await session.auth.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
            // The stored ID token stops being valid (as an expired one would).
            try await session.tokens.replaceIDTokenForTesting(IDToken(rawValue: "v1.expired.token"))

            let members = session.members
            let nicknames = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await members.me().nickname } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(nicknames == Array(repeating: "Astro", count: 20))
            #expect(await session.tokens.refreshCount == 1)
            let refreshed = try await session.tokens.accessToken()
            #expect(refreshed != "v1.expired.token")
        }
    }

    @Test func aSpentRefreshTokenFailsEveryWaiterAndAsksForALogin() async throws {
        try await withServer { server in
            let session = try session(server)
            try await session.auth.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
            try await session.tokens.replaceIDTokenForTesting(IDToken(rawValue: "v1.expired.token"))
            // Another device used the refresh token first: the server rotated it.
            let stolen = try #require(try await session.tokens.refreshTokenForTesting())
            _ = try await AuthAPI(client: server.client).refresh(stolen)

            await #expect {
                try await session.members.me()
            } throws: { error in
                guard case let .authenticationFailed(.refreshFailed(underlying)) = error as? HTTPClientError else {
                    return false
                }
                return underlying as? LoginError == .invalidCredentials
            }
        }
    }

    @Test func loggingOutForgetsBothTokens() async throws {
        try await withServer { server in
            let session = try session(server)
            try await session.auth.logIn(for: User.ID(rawValue: "luna"), with: "moonwalk-1969")
            #expect(try await session.auth.currentMember().id == User.ID(rawValue: "luna"))
            try await session.auth.logOut()
            await #expect(throws: SessionError.notLoggedIn) { try await session.auth.currentMember() }
            #expect(try await session.tokens.refreshTokenForTesting() == nil)
        }
    }
}
