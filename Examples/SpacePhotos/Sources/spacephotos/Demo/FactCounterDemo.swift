import BaselineHTTP
import BaselinePersistence
import BaselineStore
import Foundation
import SpacePhotosCore
import SpacePhotosServer

/// The fact counter on `BaselineStore`, and the profile loaded through a
/// Combine-style API client.
struct FactCounterDemo {
    let baseURL: URL
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        let client = HTTPClient(baseURL: baseURL)
        narrator.section("Fact counter")
        let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: .live(client: client)) }
        for _ in 0..<3 { store.send(.increment) }
        store.send(.decrement)
        store.send(.increment)
        narrator.step("+ + + − +  → count \(store.count)")

        narrator.step("Pull to refresh: `await store.send(.refresh).finish()` lasts as long as the fetch.")
        await store.send(.refresh).finish()
        narrator.result("\(store.fact ?? "no fact")  (loading: \(store.isLoading))")

        let slow = Store(initialState: FactCounter.State(count: 5)) {
            FactCounter(factClient: .live(client: client, serverOptions: [URLQueryItem(name: "delay", value: "2000")]))
        }
        let refresh = slow.send(.refresh)
        narrator.step("A slow refresh (the server waits 2 s); loading: \(slow.isLoading). Cancel…")
        slow.send(.cancel)
        await refresh.finish()
        narrator.result("Cancelled at once: loading \(slow.isLoading), fact \(slow.fact ?? "none").")

        let failing = Store(initialState: FactCounter.State(count: 8)) {
            FactCounter(
                factClient: .live(
                    client: client,
                    fallbackDelay: .milliseconds(300),
                    serverOptions: [URLQueryItem(name: "fail", value: "true")]
                )
            )
        }
        narrator.step("The server fails (503): the client falls back after a delay on its clock…")
        await failing.send(.refresh).finish()
        narrator.result(failing.fact ?? "no fact")

        narrator.section("Profile (a Combine API client, awaited)")
        let tokens = IDTokenStore(fileURL: dataDirectory.appendingPathComponent("member-token.json"))
        let demo = DemoUser.demo
        try await tokens.update(AuthAPI(client: client).logIn(for: User.ID(rawValue: demo.id), with: demo.password))
        let api = APIClient(client: client, tokenStore: tokens)
        let profile = Store(initialState: ProfileFeature.State(id: 1)) {
            ProfileFeature(factClient: .live(client: client))
        } withDependencies: {
            $0.session.member = { try await api.response(for: MemberAPI.getMember(using: api)) }
        }
        narrator.step(
            "Loading the member (executeWithIDToken() → publisher → firstValue()) and today's fact with async let…"
        )
        await profile.send(.load).finish()
        if let member = profile.member {
            narrator.result(
                "\(member.nickname) — today's fact (#\(profile.factNumber ?? 0)): \(profile.fact ?? "none")"
            )
        } else {
            narrator.result("Could not load: \(profile.errorMessage ?? "unknown")")
        }
    }
}
