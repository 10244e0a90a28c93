import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import SpacePhotosServer
import Testing

@testable import spacephotos

@Suite("Facts and the member screen over HTTP", .timeLimit(.minutes(2)))
struct FactsAndMembersIntegrationTests {
    @Test func theServerAnswersFactsAndItsKnobsWork() async throws {
        try await withServer { server in
            let client = server.client
            let seven = try await client.send(Request<String>.get("/facts/7")).value
            #expect(seven == "7 is a prime number: only 1 and itself divide it.")
            let answer = try await client.send(Request<String>.get("/facts/42")).value
            #expect(answer.contains("answer"))
            await #expect {
                try await client.send(
                    Request<String>.get("/facts/7", query: [URLQueryItem(name: "fail", value: "true")])
                )
            } throws: { ($0 as? HTTPClientError)?.status == .serviceUnavailable }
            await #expect {
                try await client.send(Request<String>.get("/facts/seven"))
            } throws: { ($0 as? HTTPClientError)?.status == .badRequest }
            // Numbers are bounded, so no request can keep the server busy.
            await #expect {
                try await client.send(Request<String>.get("/facts/9223372036854775783"))
            } throws: { ($0 as? HTTPClientError)?.status == .badRequest }
        }
    }

    @MainActor
    @Test func theFactCounterRefreshesAgainstTheServer() async throws {
        try await withServer { server in
            let store = Store(initialState: FactCounter.State(count: 9)) {
                FactCounter(factClient: .live(client: server.client))
            }
            await store.send(.refresh).finish()
            #expect(store.fact == "9 is a perfect square: 3 × 3.")
            #expect(store.isLoading == false)
        }
    }

    @MainActor
    @Test func cancellingASlowRefreshStopsIt() async throws {
        try await withServer { server in
            let slow = FactClient.live(
                client: server.client,
                serverOptions: [URLQueryItem(name: "delay", value: "10000")]
            )
            let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: slow) }
            let refresh = store.send(.refresh)
            #expect(store.isLoading)
            store.send(.cancel)
            await refresh.finish()  // returns at once: the slow request was cancelled
            #expect(store.isLoading == false)
            #expect(store.fact == nil)
        }
    }

    @MainActor
    @Test func theMemberScreenLoadsThroughTheCombineClient() async throws {
        let directory = try TemporaryDirectory()
        try await withServer { server in
            let client = server.client
            let tokens = IDTokenStore(fileURL: directory.url.appendingPathComponent("token.json"))
            let astro = DemoUser.demo
            try await tokens.update(
                AuthAPI(client: client).logIn(for: User.ID(rawValue: astro.id), with: astro.password)
            )
            let api = APIClient(client: client, tokenStore: tokens)
            let profile = Store(initialState: ProfileFeature.State(id: 1)) {
                ProfileFeature(factClient: .live(client: client))
            } withDependencies: {
                $0.session.member = { try await api.response(for: MemberAPI.getMember(using: api)) }
            }
            await profile.send(.load).finish()
            #expect(profile.member?.nickname == astro.nickname)
            #expect(profile.fact?.isEmpty == false)
            #expect(profile.errorMessage == nil)
        }
    }
}
