// Tests compiled as an Xcode 26 app target's tests are: every type below is
// main-actor isolated unless it says `nonisolated`, and so are its
// conformances.

import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Dispatch
import Foundation
import Observation
import Testing

/// Whether the code runs on the main actor's executor, the main queue.
/// (Not `Thread.isMainThread`: the test runner may drain that queue on
/// another thread.)
nonisolated var onMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

nonisolated let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

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

/// What a search screen holds and does.
struct MemberSearch: Reducer {
    struct State: Equatable {
        var query = ""
        var results: [String] = []
    }

    // Actions come back from effects on other tasks: `nonisolated` (see Reducer).
    nonisolated enum Action: Equatable, Sendable {
        case queryChanged(String)
        case resultsLoaded([String])
    }

    // The feature's own id, hashed on the main actor by the store.
    enum CancelID { case search }

    @Dependency(\.searchClient) var client

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case let .queryChanged(query):
            state.query = query
            return .run { send in
                await send(.resultsLoaded(try await client.search(query)))
            }
            .cancellable(id: CancelID.search, cancelInFlight: true)
        case let .resultsLoaded(results):
            state.results = results
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
    @Test("a TestStore test of a feature with a dependency and a cancellation id isolated to the main actor")
    func testStore() async {
        let store = TestStore(initialState: MemberSearch.State()) {
            MemberSearch()
        } withDependencies: {
            $0.searchClient.search = { query in ["\(query)-1", "\(query)-2"] }
        }
        await store.send(.queryChanged("astro")) { $0.query = "astro" }
        await store.receive(.resultsLoaded(["astro-1", "astro-2"])) { $0.results = ["astro-1", "astro-2"] }
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
