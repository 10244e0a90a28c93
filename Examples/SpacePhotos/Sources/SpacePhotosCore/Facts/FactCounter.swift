import BaselineStore

/// A counter with pull-to-refresh: count up and down, fetch a fact
/// about the count, cancel the fetch. The count is a shared value: kept
/// where `count` says (a database row, in the app), it survives a relaunch
/// once the screen sends `.count(.start)`.
///
/// ```swift
/// let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: .live(client: client)) }
/// .task { store.send(.count(.start)) }
/// List { … }
///     .refreshable { await store.send(.refresh).finish() }   // lasts exactly as long as the fetch
/// Button("Cancel") { store.send(.cancel) }
/// ```
public struct FactCounter: Reducer {
    /// What the counter screen shows.
    public struct State: Equatable, Sendable {
        /// The number on screen, kept between launches; it may go below zero.
        public var count: Shared<Int>
        /// The fact about the count, or the reason it failed; `nil` until one
        /// arrives, and again after the count changes.
        public var fact: String?
        /// Whether a fact is being fetched (until it arrives, fails or is cancelled).
        public var isLoading = false

        /// A state with the given values; the defaults are a fresh counter at zero.
        public init(count: Int = 0, fact: String? = nil, isLoading: Bool = false) {
            self.count = Shared(count)
            self.fact = fact
            self.isLoading = isLoading
        }
    }

    /// What the counter screen can do: count up and down, fetch or cancel a
    /// fact, the fetch's answer, and the kept count's loading and saving.
    @CasePathable
    public enum Action: Equatable, Sendable {
        case count(SharedAction<Int>)
        case increment
        case decrement
        case refresh
        case cancel
        case factResponse(Result<String, FactError>)
    }

    /// Why a fact could not be fetched, as the screen shows it.
    public struct FactError: Error, Equatable, Sendable {
        /// Why the fetch failed, in one line for the screen.
        public var message: String
        /// An error carrying `message`.
        public init(message: String) { self.message = message }
    }

    enum CancelID { case factRequest }

    let factClient: FactClient
    let key: SharedKey<Int>

    /// A counter fetching its facts from `factClient`, its count kept at
    /// `count` (in memory unless told otherwise).
    public init(factClient: FactClient, count: SharedKey<Int> = .inMemory("count")) {
        self.factClient = factClient
        self.key = count
    }

    /// The counter, its count shared.
    public var body: some Reducer<State, Action> {
        Reduce(apply).sharing(\.count, action: \.count, key)
    }

    /// Applies `action`: a count change clears the fact, a refresh starts a fetch
    /// (cancelling one in flight), and a cancel stops it.
    private func apply(_ state: inout State, _ action: Action) -> Effect<Action> {
        switch action {
        case .count:
            return .none

        case .increment:
            state.count.value += 1
            state.fact = nil
            return .none

        case .decrement:
            state.count.value -= 1
            state.fact = nil
            return .none

        case .refresh:
            state.isLoading = true
            state.fact = nil
            return .run(name: "fetch fact about \(state.count.value)") { [count = state.count.value, factClient] send in
                do {
                    await send(.factResponse(.success(try await factClient.fetch(count))))
                } catch is CancellationError {
                    return
                } catch {
                    await send(.factResponse(.failure(FactError(message: ErrorMessage.line(for: error)))))
                }
            }
            .cancellable(id: CancelID.factRequest, cancelInFlight: true)

        case .cancel:
            state.isLoading = false
            return .cancel(id: CancelID.factRequest)

        case let .factResponse(.success(fact)):
            state.isLoading = false
            state.fact = fact
            return .none

        case let .factResponse(.failure(error)):
            state.isLoading = false
            state.fact = "Could not load a fact: \(error.message)"
            return .none
        }
    }
}
