import BaselineStore

/// A counter with pull-to-refresh: count up and down, fetch a fact
/// about the count, cancel the fetch.
///
/// ```swift
/// let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: .live(client: client)) }
/// List { … }
///     .refreshable { await store.send(.refresh).finish() }   // lasts exactly as long as the fetch
/// Button("Cancel") { store.send(.cancel) }
/// ```
public struct FactCounter: Reducer {
    /// What the counter screen shows.
    public struct State: Equatable, Sendable {
        /// The number on screen; it may go below zero.
        public var count = 0
        /// The fact about the count, or the reason it failed; `nil` until one
        /// arrives, and again after the count changes.
        public var fact: String?
        /// Whether a fact is being fetched (until it arrives, fails or is cancelled).
        public var isLoading = false

        /// A state with the given values; the defaults are a fresh counter at zero.
        public init(count: Int = 0, fact: String? = nil, isLoading: Bool = false) {
            self.count = count
            self.fact = fact
            self.isLoading = isLoading
        }
    }

    /// What the counter screen can do: count up and down, fetch or cancel a
    /// fact, and the fetch's answer.
    public enum Action: Equatable, Sendable {
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

    /// A counter fetching its facts from `factClient`.
    public init(factClient: FactClient) {
        self.factClient = factClient
    }

    /// Applies `action`: a count change clears the fact, a refresh starts a fetch
    /// (cancelling one in flight), and a cancel stops it.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            state.fact = nil
            return .none

        case .decrement:
            state.count -= 1
            state.fact = nil
            return .none

        case .refresh:
            state.isLoading = true
            state.fact = nil
            return .run(name: "fetch fact about \(state.count)") { [count = state.count, factClient] send in
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
