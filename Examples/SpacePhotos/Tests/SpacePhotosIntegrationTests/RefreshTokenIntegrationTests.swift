import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

@Suite("POST /auth/refresh: rotating refresh tokens", .timeLimit(.minutes(2)))
struct RefreshTokenIntegrationTests {
    let astro = DemoUser.demo

    @Test func aRefreshIssuesNewTokensAndRetiresTheOldOne() async throws {
        try await withServer { server in
            let api = AuthAPI(client: server.client)
            let login = try await api.grant(for: User.ID(rawValue: astro.id), with: astro.password)
            #expect(login.expiresIn == 3600)
            let first = try #require(login.refreshToken)

            let refreshed = try await api.refresh(first)
            let second = try #require(refreshed.refreshToken)
            #expect(second != first)
            #expect(refreshed.expiresIn == 3600)
            let member = try await MemberAPI(client: server.client).me(token: refreshed.idToken)
            #expect(member.id == User.ID(rawValue: astro.id))

            // The old token is spent.
            let reuse = try await server.client.answer(
                .post("/auth/refresh", body: .json(["refreshToken": first.rawValue]))
            )
            #expect(reuse.status == .unauthorized)
            #expect(reuse.serverError?.code == "invalid_refresh_token")
        }
    }

    @Test func reusingASpentTokenRevokesTheWholeChain() async throws {
        try await withServer { server in
            let api = AuthAPI(client: server.client)
            let first = try #require(
                try await api.grant(for: User.ID(rawValue: astro.id), with: astro.password).refreshToken
            )
            let second = try #require(try await api.refresh(first).refreshToken)
            // Someone replays the first token: the chain is compromised, so
            // the current token stops working too.
            await #expect(throws: LoginError.invalidCredentials) { try await api.refresh(first) }
            await #expect(throws: LoginError.invalidCredentials) { try await api.refresh(second) }
            // Another login starts a fresh chain.
            let fresh = try #require(
                try await api.grant(for: User.ID(rawValue: astro.id), with: astro.password).refreshToken
            )
            _ = try await api.refresh(fresh)
        }
    }

    @Test func anExpiredIDTokenIsRenewedWithTheRefreshToken() async throws {
        let clock = ManualDate(Date())
        try await withServer({
            $0.tokenSigner = .random(lifetime: .seconds(60))
            $0.now = { clock.now }
        }) { server in
            let api = AuthAPI(client: server.client)
            let login = try await api.grant(for: User.ID(rawValue: astro.id), with: astro.password)
            #expect(login.expiresIn == 60)
            clock.advance(by: 61)
            await #expect {
                try await MemberAPI(client: server.client).me(token: login.idToken)
            } throws: { ($0 as? HTTPClientError)?.status == .unauthorized }

            let renewed = try await api.refresh(try #require(login.refreshToken))
            _ = try await MemberAPI(client: server.client).me(token: renewed.idToken)
        }
    }

    @Test func refreshTokensExpire() async throws {
        let clock = ManualDate(Date())
        try await withServer({
            $0.refreshTokenLifetime = .seconds(600)
            $0.now = { clock.now }
        }) { server in
            let api = AuthAPI(client: server.client)
            let token = try #require(
                try await api.grant(for: User.ID(rawValue: astro.id), with: astro.password).refreshToken
            )
            clock.advance(by: 599)
            let next = try #require(try await api.refresh(token).refreshToken)
            clock.advance(by: 601)
            await #expect(throws: LoginError.invalidCredentials) { try await api.refresh(next) }
        }
    }

    @Test func badRefreshRequestsGetJSONErrors() async throws {
        try await withServer { server in
            for token in ["", "not-a-token", String(repeating: "a", count: 10_000)] {
                let response = try await server.client.answer(
                    .post("/auth/refresh", body: .json(["refreshToken": token]))
                )
                #expect(response.status == .unauthorized)
                #expect(response.serverError?.code == "invalid_refresh_token")
            }
            let wrongType = try await server.client.answer(
                .post("/auth/refresh", body: .data(Data(#"{"refreshToken": 7}"#.utf8), contentType: "application/json"))
            )
            #expect(wrongType.status == .badRequest)
            let missing = try await server.client.answer(
                .post("/auth/refresh", body: .data(Data("{}".utf8), contentType: "application/json"))
            )
            #expect(missing.status == .badRequest)
        }
    }
}
