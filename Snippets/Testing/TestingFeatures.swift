// Tests of a small feature, from a plain state change to an effect whose
// answer the test controls.

// snippet.hide
import BaselineStore
import BaselineTesting
import Testing

// snippet.show
// snippet.feature
struct FactCounter: Reducer {
    struct State: Equatable {
        var count = 0
        var fact: String?
        var isLoading = false
    }

    enum Action: Equatable, Sendable {
        case increment
        case factButtonTapped
        case factResponse(String)
        case factFailed
        case cancelTapped
    }

    enum CancelID { case fact }

    let fetchFact: @Sendable (Int) async throws -> String

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            return .none
        case .factButtonTapped:
            state.isLoading = true
            return .run { [count = state.count, fetchFact] send in
                await send(.factResponse(try await fetchFact(count)))
            } catch: { _, send in
                await send(.factFailed)
            }
            .cancellable(id: CancelID.fact, cancelInFlight: true)
        case let .factResponse(fact):
            state.isLoading = false
            state.fact = fact
            return .none
        case .factFailed:
            state.isLoading = false
            return .none
        case .cancelTapped:
            state.isLoading = false
            return .cancel(id: CancelID.fact)
        }
    }
}
// snippet.end

struct FactError: Error {}

// snippet.suite
@MainActor  // TestStore lives on the main actor
@Suite(.timeLimit(.minutes(1)))  // a wait that never ends fails, not hangs
struct FactCounterTests {
    // One double per test: Swift Testing makes a suite instance per test.
    let fetchFact = ControllableCall<Int, String>()

    func makeStore() -> TestStore<FactCounter.State, FactCounter.Action> {
        TestStore(initialState: FactCounter.State()) {
            FactCounter(fetchFact: { [fetchFact] in try await fetchFact($0) })
        }
    }
    // snippet.end

    // snippet.state
    @Test func incrementing() async {
        let store = makeStore()
        // The closure turns the state before into the state expected after.
        await store.send(.increment) { $0.count = 1 }
        await store.send(.increment) { $0.count = 2 }
    }
    // snippet.end

    // snippet.effect
    @Test func loadingAFact() async throws {
        let store = makeStore()
        await store.send(.factButtonTapped) { $0.isLoading = true }

        // The effect is now suspended in fetchFact: take the call, check it,
        // and answer it. No sleep decides when the answer comes.
        let call = try await fetchFact.nextCall()
        #expect(call.arguments == 0)
        call.resume(returning: "0 is the additive identity.")

        // The effect sends the answer back; receive runs the reducer with it.
        await store.receive(.factResponse("0 is the additive identity.")) {
            $0.isLoading = false
            $0.fact = "0 is the additive identity."
        }
        await store.finish()
    }
    // snippet.end

    // snippet.failure
    @Test func aFailedFetch() async throws {
        let store = makeStore()
        await store.send(.factButtonTapped) { $0.isLoading = true }
        try await fetchFact.nextCall().resume(throwing: FactError())
        await store.receive(.factFailed) { $0.isLoading = false }
        await store.finish()
    }
    // snippet.end

    // snippet.cancel
    @Test func cancelling() async throws {
        let store = makeStore()
        await store.send(.factButtonTapped) { $0.isLoading = true }
        let call = try await fetchFact.nextCall()

        await store.send(.cancelTapped) { $0.isLoading = false }
        await store.finish()  // the effect has ended...
        #expect(call.isCancelled)  // ...because its call was cancelled
        #expect(call.resume(returning: "too late") == false)
    }
    // snippet.end

    // snippet.nonexhaustive
    @Test func theFactArrives() async throws {
        let store = makeStore()
        store.exhaustivity = .off  // check only what the test states
        await store.send(.increment)
        await store.send(.factButtonTapped)
        try await fetchFact.nextCall().resume(returning: "1 is the loneliest number.")
        await store.receive(.factResponse("1 is the loneliest number.")) {
            $0.fact = "1 is the loneliest number."
        }
        #expect(store.state.isLoading == false)
    }
    // snippet.end
}
