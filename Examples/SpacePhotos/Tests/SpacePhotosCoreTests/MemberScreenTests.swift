import BaselineHTTP
import BaselinePersistence
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("Member screen", .timeLimit(.minutes(1)))
struct MemberScreenTests {
    let member = ControllableCall<Void, User>()
    let facts = ControllableCall<Int, String>()
    let astro = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 0))

    func makeModel() -> MemberScreenModel {
        let member = self.member
        let facts = self.facts
        return MemberScreenModel(
            fetchMember: { try await member() },
            factClient: FactClient { try await facts($0) },
            today: { Date(timeIntervalSince1970: 86_400 * 14) }  // 15 January 1970
        )
    }

    @Test func loadsTheMemberAndTodaysFactConcurrently() async throws {
        let model = makeModel()
        let loading = Task { await model.load() }
        // Both requests are in flight before either is answered: concurrent.
        let memberCall = try await member.nextCall()
        let factCall = try await facts.nextCall()
        #expect(factCall.arguments == 15)
        #expect(model.isLoading)
        factCall.resume(returning: "15 is odd.")
        memberCall.resume(returning: astro)
        await loading.value
        #expect(model.member == astro)
        #expect(model.fact == "15 is odd.")
        #expect(model.isLoading == false)
    }

    @Test func leavingTheScreenCancelsBothRequests() async throws {
        let model = makeModel()
        let loading = Task { await model.load() }
        let memberCall = try await member.nextCall()
        let factCall = try await facts.nextCall()
        loading.cancel()
        await loading.value
        #expect(memberCall.isCancelled)
        #expect(factCall.isCancelled)
        #expect(model.errorMessage == nil)
        #expect(model.isLoading == false)
    }

    @Test func aFailureOfEitherIsReported() async throws {
        let model = makeModel()
        let loading = Task { await model.load() }
        try await member.nextCall().resume(throwing: APIClientError.notLoggedIn)
        await loading.value
        #expect(model.errorMessage?.contains("Not logged in") == true)
        #expect(model.member == nil)
    }
}

@Suite("APIClient (seed 002)", .timeLimit(.minutes(1)))
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
