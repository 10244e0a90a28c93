import BaselineStore

/// Seed 003's counter with pull-to-refresh: count up and down, fetch a fact
/// about the count, cancel the fetch.
///
/// ```swift
/// let store = Store(initialState: FactCounter.State()) { FactCounter(factClient: .live(client: client)) }
/// List { … }
///     .refreshable { await store.send(.refresh).finish() }   // lasts exactly as long as the fetch
/// Button("Cancel") { store.send(.cancel) }
/// ```
public struct FactCounter: Reducer {
    public struct State: Equatable, Sendable {
        public var count = 0
        public var fact: String?
        public var isLoading = false

        public init(count: Int = 0, fact: String? = nil, isLoading: Bool = false) {
            self.count = count
            self.fact = fact
            self.isLoading = isLoading
        }
    }

    public enum Action: Equatable, Sendable {
        case increment
        case decrement
        case refresh
        case cancel
        case factResponse(Result<String, FactError>)
    }

    /// Why a fact could not be fetched, as the screen shows it.
    public struct FactError: Error, Equatable, Sendable {
        public var message: String
        public init(message: String) { self.message = message }
    }

    enum CancelID { case factRequest }

    let factClient: FactClient

    public init(factClient: FactClient) {
        self.factClient = factClient
    }

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
