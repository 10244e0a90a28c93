import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Testing

/// Sources the tests feed by hand: one stream per start, announced as it
/// starts, with a record of the streams that were ended by their consumer.
final class Feeds: Sendable {
    struct Feed: Sendable {
        let query: String
        let continuation: AsyncThrowingStream<[String], any Error>.Continuation
    }

    let starts: AsyncStream<Feed>
    private let announce: AsyncStream<Feed>.Continuation
    private let ended = LockedValue<[String]>([])
    private let endings: AsyncStream<String>
    private let announceEnding: AsyncStream<String>.Continuation

    init() {
        (starts, announce) = AsyncStream.makeStream()
        (endings, announceEnding) = AsyncStream.makeStream()
    }

    func stream(for query: String) -> AsyncThrowingStream<[String], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [String].self)
        continuation.onTermination = { [ended, announceEnding] _ in
            ended.withLock { $0.append(query) }
            announceEnding.yield(query)
        }
        announce.yield(Feed(query: query, continuation: continuation))
        return stream
    }

    /// The queries whose streams have ended, in order.
    var endedQueries: [String] { ended.withLock { $0 } }

    /// Waits for the next stream to end, and returns its query.
    func nextEnding() async -> String? {
        var iterator = endings.makeAsyncIterator()
        return await iterator.next()
    }
}

/// A search over a source that the tests feed.
struct Search: Reducer {
    struct State: Equatable {
        var text = ""
        var results = Fetched<[String]>([])
        /// What the feature's own logic saw, to show it runs after the value changed.
        var countSeen: Int?
    }

    @CasePathable
    enum Action: Equatable {
        case results(FetchAction<[String]>)
        case textChanged(String)
    }

    let feeds: Feeds

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            switch action {
            case let .textChanged(text):
                state.text = text
            case .results(.loaded):
                state.countSeen = state.results.value.count
            case .results:
                break
            }
            return .none
        }
        .fetching(\.results, action: \.results, query: \.text) { [feeds] text in feeds.stream(for: text) }
    }
}

/// The same search, its text set by a reducer that runs before the one that
/// follows the source (as a `BindingReducer` at the top of a body does).
struct SearchSetEarlier: Reducer {
    typealias State = Search.State
    typealias Action = Search.Action

    let feeds: Feeds

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            if case let .textChanged(text) = action { state.text = text }
            return .none
        }
        Reduce { _, _ in .none }
            .fetching(\.results, action: \.results, query: \.text) { [feeds] text in feeds.stream(for: text) }
    }
}

/// A source whose values wait at a gate that ignores cancellation: a result
/// read just before its query changed, still on its way after.
final class GatedSource: AsyncSequence, Sendable {
    typealias Element = [String]

    private struct Mailbox {
        var values: [[String]?] = []
        var waiting: CheckedContinuation<[String]?, Never>?
    }

    private let mailbox = LockedValue(Mailbox())

    /// Lets `value` through (`nil` ends the sequence).
    func open(with value: [String]?) {
        let waiting = mailbox.withLock { box -> CheckedContinuation<[String]?, Never>? in
            guard let waiting = box.waiting else {
                box.values.append(value)
                return nil
            }
            box.waiting = nil
            return waiting
        }
        waiting?.resume(returning: value)
    }

    /// Waits for the next value; no cancellation handler, on purpose.
    func take() async -> [String]? {
        await withCheckedContinuation { continuation in
            let ready = mailbox.withLock { box -> [String]?? in
                if !box.values.isEmpty { return .some(box.values.removeFirst()) }
                box.waiting = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: GatedSource
        mutating func next() async throws -> [String]? { await source.take() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// Two searches of one type side by side in one store.
struct TwoSearches: Reducer {
    struct State: Equatable {
        var left = Search.State()
        var right = Search.State()
    }

    @CasePathable
    enum Action: Equatable {
        case left(Search.Action)
        case right(Search.Action)
    }

    let feeds: Feeds

    var body: some Reducer<State, Action> {
        Scope(state: \.left, action: \.left) { Search(feeds: feeds) }
        Scope(state: \.right, action: \.right) { Search(feeds: feeds) }
    }
}

struct SourceFailed: Error, Equatable {
    var reason = "gone"
}

@MainActor
@Suite("Fetched: state that follows a source", .timeLimit(.minutes(1)))
struct FetchingTests {
    let feeds = Feeds()

    func makeStore() -> TestStore<Search.State, Search.Action> {
        TestStore(initialState: Search.State()) { [feeds] in Search(feeds: feeds) }
    }

    /// A store following its source, which has delivered `["Apollo"]`.
    func startedWithApollo() async throws -> (TestStore<Search.State, Search.Action>, Feeds.Feed) {
        let store = makeStore()
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        let feed = try await nextFeed()
        feed.continuation.yield(["Apollo"])
        await store.receive(.results(.loaded(["Apollo"]))) {
            $0.results.value = ["Apollo"]
            $0.results.isLoading = false
            $0.countSeen = 1
        }
        return (store, feed)
    }

    func nextFeed() async throws -> Feeds.Feed {
        var iterator = feeds.starts.makeAsyncIterator()
        guard let feed = await iterator.next() else { throw CancellationError() }
        return feed
    }

    @Test func eachValueIsAnActionTheTestAsserts() async throws {
        let store = makeStore()
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        let feed = try await nextFeed()
        #expect(feed.query == "")
        feed.continuation.yield(["Apollo", "Gemini"])
        await store.receive(.results(.loaded(["Apollo", "Gemini"]))) {
            $0.results.value = ["Apollo", "Gemini"]
            $0.results.isLoading = false
            $0.countSeen = 2  // the feature's logic saw the new value
        }
        feed.continuation.yield(["Apollo", "Gemini", "Mercury"])
        await store.receive(.results(.loaded(["Apollo", "Gemini", "Mercury"]))) {
            $0.results.value = ["Apollo", "Gemini", "Mercury"]
            $0.countSeen = 3
        }
        await store.send(.results(.stop)) { $0.results.isFollowing = false }
        await store.finish()
        #expect(feeds.endedQueries == [""])
    }

    @Test func aNewQueryReplacesTheSourceAndNoOlderResultArrivesAfterIt() async throws {
        let store = makeStore()
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        let first = try await nextFeed()
        first.continuation.yield(["Apollo", "Gemini"])
        await store.receive(.results(.loaded(["Apollo", "Gemini"]))) {
            $0.results.value = ["Apollo", "Gemini"]
            $0.results.isLoading = false
            $0.countSeen = 2
        }

        await store.send(.textChanged("Ap")) {
            $0.text = "Ap"
            $0.results.isLoading = true  // the old rows stay while the new query runs
        }
        let second = try await nextFeed()
        #expect(second.query == "Ap")
        #expect(await feeds.nextEnding() == "")
        // The old source's late result is dropped: an exhaustive store would
        // fail on it at `finish()` if it arrived.
        first.continuation.yield(["stale"])
        second.continuation.yield(["Apollo"])
        await store.receive(.results(.loaded(["Apollo"]))) {
            $0.results.value = ["Apollo"]
            $0.results.isLoading = false
            $0.countSeen = 1
        }
        await store.send(.results(.stop)) { $0.results.isFollowing = false }
        await store.finish()
        #expect(feeds.endedQueries == ["", "Ap"])
    }

    @Test func aQueryChangedByAnEarlierReducerRestartsTheSource() async throws {
        let store = TestStore(initialState: Search.State()) { [feeds] in SearchSetEarlier(feeds: feeds) }
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        #expect(try await nextFeed().query == "")
        await store.send(.textChanged("Ge")) { $0.text = "Ge" }
        let second = try await nextFeed()
        #expect(second.query == "Ge")
        second.continuation.yield(["Gemini"])
        await store.receive(.results(.loaded(["Gemini"]))) {
            $0.results.value = ["Gemini"]
            $0.results.isLoading = false
        }
        await store.send(.results(.stop)) { $0.results.isFollowing = false }
        await store.finish()
    }

    @Test func aResultOnItsWayWhenTheQueryChangedNeverArrives() async throws {
        let first = GatedSource()
        let second = GatedSource()
        let store = TestStore(initialState: Search.State()) {
            Reduce<Search.State, Search.Action> { state, action in
                if case let .textChanged(text) = action { state.text = text }
                return .none
            }
            // By query, not by call order: the two effects' tasks may call
            // this in either order (the first may start after it is cancelled).
            .fetching(\.results, action: \.results, query: \.text) { text in
                text.isEmpty ? first : second
            }
        }
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        await store.send(.textChanged("Ap")) { $0.text = "Ap" }
        // The first source's iterator is past the cancellation: its value
        // comes out, and the cancelled effect must drop it.
        first.open(with: ["stale"])
        first.open(with: nil)
        second.open(with: ["Apollo"])
        await store.receive(.results(.loaded(["Apollo"]))) {
            $0.results.value = ["Apollo"]
            $0.results.isLoading = false
        }
        second.open(with: nil)
        await store.receive(.results(.finished)) { $0.results.isFollowing = false }
        // Exhaustive: a stale `.loaded(["stale"])` received meanwhile fails here.
        await store.finish()
    }

    @Test func startingAgainWhileFollowingTheSameQueryDoesNothing() async throws {
        let (store, _) = try await startedWithApollo()
        await store.send(.results(.start))  // no state change, no new source
        #expect(store.runningEffectCount == 1)
        #expect(feeds.endedQueries.isEmpty)
        await store.send(.results(.stop)) { $0.results.isFollowing = false }
        await store.finish()
    }

    @Test func twoFeaturesOfOneTypeEachStopOnlyTheirOwnSource() async throws {
        let store = TestStore(initialState: TwoSearches.State()) { [feeds] in TwoSearches(feeds: feeds) }
        await store.send(.left(.textChanged("left"))) { $0.left.text = "left" }
        await store.send(.right(.textChanged("right"))) { $0.right.text = "right" }
        await store.send(.left(.results(.start))) {
            $0.left.results.isFollowing = true
            $0.left.results.isLoading = true
        }
        #expect(try await nextFeed().query == "left")
        await store.send(.right(.results(.start))) {
            $0.right.results.isFollowing = true
            $0.right.results.isLoading = true
        }
        let right = try await nextFeed()
        #expect(right.query == "right")
        #expect(feeds.endedQueries.isEmpty)  // starting the right one left the left one running

        await store.send(.left(.results(.stop))) {
            $0.left.results.isFollowing = false
            $0.left.results.isLoading = false
        }
        #expect(await feeds.nextEnding() == "left")
        right.continuation.yield(["still here"])
        await store.receive(.right(.results(.loaded(["still here"])))) {
            $0.right.results.value = ["still here"]
            $0.right.results.isLoading = false
            $0.right.countSeen = 1
        }
        await store.send(.right(.results(.stop))) { $0.right.results.isFollowing = false }
        await store.finish()
        #expect(feeds.endedQueries == ["left", "right"])
    }

    @Test func anUnchangedQueryKeepsTheSource() async throws {
        let store = makeStore()
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        _ = try await nextFeed()
        await store.send(.textChanged(""))  // the same text: nothing restarts
        #expect(store.runningEffectCount == 1)
        await store.send(.results(.stop)) {
            $0.results.isFollowing = false
            $0.results.isLoading = false
        }
        await store.finish()
        #expect(feeds.endedQueries == [""])
    }

    @Test func aQueryChangedBeforeTheStartStartsNothing() async throws {
        let store = makeStore()
        await store.send(.textChanged("Ge")) { $0.text = "Ge" }
        #expect(store.runningEffectCount == 0)
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        #expect(try await nextFeed().query == "Ge")
        await store.send(.results(.stop)) {
            $0.results.isFollowing = false
            $0.results.isLoading = false
        }
        await store.finish()
    }

    @Test func aFailureStopsFollowingAndKeepsTheLastValue() async throws {
        let (store, feed) = try await startedWithApollo()
        feed.continuation.finish(throwing: SourceFailed())
        await store.receive(.results(.failed(FetchFailure(SourceFailed())))) {
            $0.results.loadError = FetchFailure(SourceFailed())
            $0.results.isFollowing = false
        }
        #expect(store.state.results.value == ["Apollo"])
        await store.finish()

        // Starting again retries, and a value clears the error.
        await store.send(.results(.start)) {
            $0.results.isFollowing = true
            $0.results.isLoading = true
        }
        let retry = try await nextFeed()
        retry.continuation.yield(["Apollo", "Gemini"])
        await store.receive(.results(.loaded(["Apollo", "Gemini"]))) {
            $0.results.value = ["Apollo", "Gemini"]
            $0.results.isLoading = false
            $0.results.loadError = nil
            $0.countSeen = 2
        }
        retry.continuation.finish()
        await store.receive(.results(.finished)) { $0.results.isFollowing = false }
        await store.finish()
    }

    @Test func releasingTheStoreEndsTheSourceWithoutCallingItALeak() async throws {
        let logs = LogRecorder()
        var store: Store<Search.State, Search.Action>? = Store(
            initialState: Search.State(),
            logger: logs.logger(),
            reducer: { [feeds] in Search(feeds: feeds) }
        )
        store?.send(.results(.start))
        _ = try await nextFeed()
        store = nil
        #expect(await feeds.nextEnding() == "")
        // Following until the store goes is what a followed source does.
        #expect(!logs.entries.contains { $0.level == .warning })
    }

    @Test func failuresCompareByTheirErrors() {
        #expect(FetchFailure(SourceFailed()) == FetchFailure(SourceFailed()))
        #expect(FetchFailure(SourceFailed()) != FetchFailure(SourceFailed(reason: "closed")))
        struct Opaque: Error { let code: Int }  // not Equatable: compared by description
        #expect(FetchFailure(Opaque(code: 1)) == FetchFailure(Opaque(code: 1)))
        #expect(FetchFailure(Opaque(code: 1)) != FetchFailure(Opaque(code: 2)))
        #expect(FetchFailure(Opaque(code: 1)) != FetchFailure(SourceFailed()))
    }
}
