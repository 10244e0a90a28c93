/// Describes how a feature's state changes in response to an action, and
/// what work (an ``Effect``) follows.
///
/// ```swift
/// struct Counter: Reducer {
///     struct State: Equatable { var count = 0 }
///     enum Action: Sendable { case increment, decrement }
///
///     func reduce(into state: inout State, action: Action) -> Effect<Action> {
///         switch action {
///         case .increment: state.count += 1
///         case .decrement: state.count -= 1
///         }
///         return .none
///     }
/// }
/// ```
///
/// `reduce` runs on the main actor, synchronously: keep it to state changes
/// and describing effects; the effects do the slow work.
public protocol Reducer<State, Action> {
    associatedtype State
    associatedtype Action: Sendable

    /// Applies `action` to `state` and returns the effect to run next.
    func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer from a closure, for small features and for gluing reducers together.
///
/// ```swift
/// let counter = Reduce<Int, CounterAction> { count, action in
///     count += action == .increment ? 1 : -1
///     return .none
/// }
/// ```
public struct Reduce<State, Action: Sendable>: Reducer {
    let body: (inout State, Action) -> Effect<Action>

    /// A reducer that runs `body`.
    public init(_ body: @escaping (inout State, Action) -> Effect<Action>) {
        self.body = body
    }

    /// Runs the closure.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        body(&state, action)
    }
}

/// Runs several reducers on the same state and action, in order, and merges
/// their effects.
///
/// ```swift
/// CombineReducers(
///     Scope(state: \.counter, action: { if case let .counter(a) = $0 { a } else { nil } },
///           embed: Action.counter) { Counter() },
///     Reduce { state, action in … }
/// )
/// ```
public struct CombineReducers<State, Action: Sendable>: Reducer {
    let reducers: [any Reducer<State, Action>]

    /// A reducer that runs `reducers` in order.
    public init(_ reducers: any Reducer<State, Action>...) {
        self.reducers = reducers
    }

    /// Runs each reducer in order and merges their effects.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        .merge(reducers.map { $0.reduce(into: &state, action: action) })
    }
}
