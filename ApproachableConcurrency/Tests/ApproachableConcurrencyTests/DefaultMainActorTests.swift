// Tests compiled as an Xcode 26 app target's tests are: every type below is
// main-actor isolated unless it says `nonisolated`, and so are its
// conformances.

import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import MainQueue
import Observation
import Testing

// MARK: A feature as an app declares it

/// A member as the API sends it: `Decodable` on the main actor.
struct Member: Decodable, Equatable {
    var id: String
    /// Whether `init(from:)` ran on the main actor.
    var decodedOnMain: Bool

    enum CodingKeys: String, CodingKey { case id }

    init(id: String, decodedOnMain: Bool) {
        self.id = id
        self.decodedOnMain = decodedOnMain
    }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
        decodedOnMain = onMainQueue
    }
}

/// A row of a large list: `nonisolated`, so it is decoded off the main actor.
nonisolated struct Row: Decodable, Sendable {
    var id: Int
    var decodedOnMain: Bool

    enum CodingKeys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
        decodedOnMain = onMainQueue
    }
}

/// A client as a dependency: the struct as it is, its two extensions
/// `nonisolated` (dependencies are read in effects, off the main actor).
struct SearchClient: Sendable {
    var search: @Sendable (String) async throws -> [String]
}

nonisolated extension SearchClient: DependencyKey {
    static let liveValue = SearchClient { _ in [] }
    static let testValue = SearchClient(search: unimplemented("SearchClient.search", placeholder: []))
}

nonisolated extension DependencyValues {
    var searchClient: SearchClient {
        get { self[SearchClient.self] }
        set { self[SearchClient.self] = newValue }
    }
}

/// What a search screen holds and does: declared as an app declares it,
/// with no `nonisolated` anywhere.
struct MemberSearch: Reducer {
    struct State: Equatable {
        var query = ""
        var isExact = false
        var results: [String] = []
    }

    @CasePathable
    enum Action: BindableAction, Equatable {
        case binding(BindingAction<State>)
        case queryChanged(String)
        case resultsLoaded([String])
    }

    // The feature's own id, hashed on the main actor by the store.
    enum CancelID { case search }

    @Dependency(\.searchClient) var client

    var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            switch action {
            case .binding:
                return .none
            case let .queryChanged(query):
                state.query = query
                return .run { [isExact = state.isExact] send in
                    let results = try await client.search(query)
                    await send(.resultsLoaded(isExact ? results.filter { $0 == query } : results))
                }
                .cancellable(id: CancelID.search, cancelInFlight: true)
            case let .resultsLoaded(results):
                state.results = results
                return .none
            }
        }
    }
}

/// A tab that holds the search: a parent feature, scoping by case key path.
struct SearchTab: Reducer {
    struct State: Equatable {
        var search = MemberSearch.State()
    }

    @CasePathable
    enum Action: Equatable {
        case search(MemberSearch.Action)
    }

    var body: some Reducer<State, Action> {
        Scope(state: \.search, action: \.search) { MemberSearch() }
    }
}

/// A profile screen whose effect decodes a `Member`, a type whose `Decodable`
/// conformance is the main actor's: the effect runs on the main actor to use
/// it. The action carries a `Member`, so it is not `Sendable`, and need not be.
struct ProfileScreen: Reducer {
    struct State: Equatable {
        var member: Member?
    }

    enum Action: Equatable {
        case load
        case loaded(Member)
    }

    let client: HTTPClient

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .load:
            return .run { @MainActor send in
                send(.loaded(try await client.send(Request<Member>.get("/members/me")).value))
            }
        case let .loaded(member):
            state.member = member
            return .none
        }
    }
}

/// A session kept between launches: `Codable` on the main actor.
struct Session: Codable, Equatable {
    var userID: String
}

/// A repository whose methods are the main actor's, as an app's are.
final class TodoRepository {
    let changes: AsyncStream<[String]>
    private(set) var observations = 0

    init(changes: AsyncStream<[String]>) {
        self.changes = changes
    }

    func observeAll() -> AsyncStream<[String]> {
        observations += 1
        return changes
    }
}

@Observable
final class TodoListModel {
    private(set) var todos: [String] = []
    @ObservationIgnored private var observer: StreamObserver?

    init(repository: TodoRepository) {
        // The closure calls the main-actor repository without `await`.
        observer = StreamObserver(observing: { repository.observeAll() }) { [weak self] todos in
            await self?.show(todos)
        }
        observer?.start()
    }

    private func show(_ todos: [String]) {
        self.todos = todos
    }
}

// MARK: Tests

@Suite("A default-MainActor module")
struct DefaultMainActorTests {
    @Test("a TestStore test of features whose actions, ids and dependency are declared as an app declares them")
    func testStore() async {
        let store = TestStore(initialState: SearchTab.State()) {
            SearchTab()
        } withDependencies: {
            $0.searchClient.search = { query in [query, "\(query)-2"] }
        }
        await store.send(.search(.binding(.set(\.isExact, true)))) { $0.search.isExact = true }
        await store.send(.search(.queryChanged("astro"))) { $0.search.query = "astro" }
        await store.receive(.search(.resultsLoaded(["astro"]))) { $0.search.results = ["astro"] }
        await store.finish()
    }

    @Test("an effect on the main actor decodes a main-actor model, and sends an action that is not Sendable")
    func mainActorEffect() async {
        let transport = StubTransport()
        transport.on(.get, "/members/me", respond: .text(#"{"id":"astro"}"#, contentType: "application/json"))
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
        let store = TestStore(initialState: ProfileScreen.State()) { ProfileScreen(client: client) }
        await store.send(.load)
        await store.receive(.loaded(Member(id: "astro", decodedOnMain: true))) {
            $0.member = Member(id: "astro", decodedOnMain: true)
        }
        await store.finish()
    }

    @Test("a response type isolated to the main actor is decoded there; a nonisolated one is not")
    func decoding() async throws {
        let transport = StubTransport()
        transport.on(.get, "/members/me", respond: .text(#"{"id":"astro"}"#, contentType: "application/json"))
        transport.on(.get, "/rows", respond: .text(#"[{"id":1},{"id":2}]"#, contentType: "application/json"))
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)

        let member = try await client.send(Request<Member>.get("/members/me")).value
        #expect(member == Member(id: "astro", decodedOnMain: true))

        let rows = try await client.send(Request<[Row]>.get("/rows")).value
        #expect(rows.map(\.id) == [1, 2])
        #expect(rows.allSatisfy { !$0.decodedOnMain })
        #expect(transport.requests.map(\.path) == ["/members/me", "/rows"])
    }

    @Test("a value whose Codable conformance is the main actor's is stored and read back")
    func secureValueStore() async throws {
        let directory = try TemporaryDirectory()
        let sessions = SecureValueStore<Session>(fileURL: directory.url.appending(path: "session.json"))
        try await sessions.save(Session(userID: "astro"))
        #expect(try await sessions.load() == Session(userID: "astro"))
        try await sessions.clear()
        #expect(try await sessions.load() == nil)
    }

    @Test("an observer's sequence is made on the main actor, by a main-actor repository")
    func streamObserver() async throws {
        let (changes, feed) = AsyncStream.makeStream(of: [String].self)
        let repository = TodoRepository(changes: changes)
        let model = TodoListModel(repository: repository)
        feed.yield(["Buy film"])
        try await waitUntil(model) { $0.todos == ["Buy film"] }
        #expect(repository.observations == 1)
    }
}
