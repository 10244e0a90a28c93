import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@testable import spacephotos

@MainActor
@Suite("Profile", .timeLimit(.minutes(2)))
struct ProfileFeatureTests {
    let member = ControllableCall<Void, User>()
    let facts = ControllableCall<Int, String>()
    let astro = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 0))

    func makeStore(
        _ state: ProfileFeature.State = ProfileFeature.State(id: 1)
    ) -> TestStore<ProfileFeature.State, ProfileFeature.Action> {
        let (member, facts) = (self.member, self.facts)
        return TestStore(initialState: state) {
            ProfileFeature(
                factClient: FactClient { try await facts($0) },
                today: { Date(timeIntervalSince1970: 86_400 * 14) }  // 15 January 1970
            )
        } withDependencies: {
            $0.session.member = { try await member() }
        }
    }

    @Test func loadsTheMemberAndTodaysFactConcurrently() async throws {
        let store = makeStore()
        await store.send(.load) { $0.isLoading = true }
        // Both requests are in flight before either is answered: concurrent.
        let memberCall = try await member.nextCall()
        let factCall = try await facts.nextCall()
        #expect(factCall.arguments == 15)
        factCall.resume(returning: "15 is odd.")
        memberCall.resume(returning: astro)
        await store.receive(.loaded(astro, fact: "15 is odd.", number: 15)) {
            $0.isLoading = false
            $0.member = astro
            $0.fact = "15 is odd."
            $0.factNumber = 15
        }
        await store.finish()
    }

    @Test func leavingTheScreenCancelsBothRequests() async throws {
        // The profile is presented by the app: leaving the main screen dismisses it.
        let fixture = AppFixture(holdsFacts: true)
        let dependencies = try await fixture.dependencies()
        let member = self.member
        let store = TestStore(
            initialState: AppFeature.State(screen: .main, profile: ProfileFeature.State(id: 1), sessionNumber: 1)
        ) {
            AppFeature(dependencies: dependencies)
        } withDependencies: {
            $0.session.member = { try await member() }
        }
        await store.send(.profile(.presented(.load))) { $0.profile?.isLoading = true }
        let memberCall = try await member.nextCall()
        let factCall = try await fixture.factCalls.nextCall()
        await store.send(.profile(.dismiss)) { $0.profile = nil }
        await store.finish()
        #expect(memberCall.isCancelled)
        #expect(factCall.isCancelled)
    }

    @Test func aFailureOfEitherIsReported() async throws {
        let store = makeStore(ProfileFeature.State(id: 1, member: astro, fact: "1 is one.", factNumber: 1))
        await store.send(.load) { $0.isLoading = true }
        try await member.nextCall().resume(throwing: SessionError.notLoggedIn)
        await store.receive(
            .loadFailed(ErrorMessage.line("The member screen could not load", SessionError.notLoggedIn))
        ) {
            $0.isLoading = false
            $0.errorMessage = ErrorMessage.line("The member screen could not load", SessionError.notLoggedIn)
        }
        await store.finish()
        #expect(store.state.member == astro, "what showed before stays")
    }
}

@Suite("APIClient", .timeLimit(.minutes(2)))
struct APIClientTests {
    let directory: TemporaryDirectory
    let store: IDTokenStore
    let transport = StubTransport()
    let api: APIClient

    init() throws {
        directory = try TemporaryDirectory()
        store = IDTokenStore(
            fileURL: directory.url.appendingPathComponent("token.json"),
            logger: LogRecorder().logger()
        )
        api = APIClient(
            client: HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport),
            tokenStore: store
        )
    }

    @Test func attachesTheStoredTokenAndDecodes() async throws {
        try await store.update(IDToken(rawValue: "t-1"))
        transport.on(.get, "/members/me", respond: .text(#"{"id":"astro","nickname":"Astro","birthday":"1990-04-12"}"#))
        let member = try await api.response(for: MemberAPI.getMember(using: api))
        #expect(member.nickname == "Astro")
        #expect(transport.requests.first?.headerFields[.authorization] == "Bearer t-1")
    }

    @Test func withoutATokenItFailsBeforeSendingAnything() async throws {
        await #expect {
            try await api.response(for: MemberAPI.getMember(using: api))
        } throws: { error in
            if case .notLoggedIn = error as? APIClientError { true } else { false }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func theBuilderIsAPublisherToo() async throws {
        try await store.update(IDToken(rawValue: "t-1"))
        transport.on(.get, "/members/me", respond: .status(.unauthorized))
        await #expect {
            try await MemberAPI.getMember(using: api).executeWithIDToken().firstValue()
        } throws: { error in
            if case let .http(http) = error as? APIClientError { http.status == .unauthorized } else { false }
        }
    }

    @Test func cancellingTheAwaitCancelsTheRequest() async throws {
        try await store.update(IDToken(rawValue: "t-1"))
        let held = transport.hold(.get, "/members/me")
        let api = self.api
        let loading = Task { try await api.response(for: MemberAPI.getMember(using: api)) }
        let call = try await held.nextCall()
        loading.cancel()
        await #expect(throws: CancellationError.self) { try await loading.value }
        #expect(call.isCancelled)
    }
}
