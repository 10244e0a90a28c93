/// Describes how a feature's state changes in response to an action, and
/// what work (an ``Effect``) follows.
///
/// A feature whose logic fits in one `switch` implements
/// ``reduce(into:action:)``:
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
/// A feature made of others declares a ``body`` instead, composing reducers
/// in the order they run:
///
/// ```swift
/// struct AppFeature: Reducer {
///     struct State: Equatable { var counter = Counter.State(); var login: LoginFeature.State? }
///     @CasePathable enum Action: BindableAction { case counter(Counter.Action), login(PresentationAction<LoginFeature.Action>), … }
///
///     var body: some Reducer<State, Action> {
///         BindingReducer(action: \.binding)
///         Scope(state: \.counter, action: \.counter) { Counter() }
///         Reduce { state, action in … }   // the feature's own logic
///             .presenting(\.login, action: \.login) { LoginFeature() }
///     }
/// }
/// ```
///
/// A store builds a body **once**, when it is made, with the bodies of the
/// features inside it; each action then runs the reducers it holds. A body
/// therefore describes structure only: it cannot depend on state (read
/// state in a ``Reduce``).
///
/// `reduce` runs on the main actor, synchronously: keep it to state changes
/// and describing effects; the effects do the slow work.
///
/// ### In an Xcode 26 app target
///
/// A new app target's default isolation is `MainActor`, so the types a
/// feature declares, and their conformances, are the main actor's. A
/// feature's reducer, state, actions (`@CasePathable`, `Equatable`) and
/// cancellation ids work as they are: the store uses their conformances on
/// the main actor only. An action need not even be `Sendable`: an effect
/// sends one it has just made, which Swift lets cross to the main actor.
///
/// An effect's work runs off the main actor, and what it uses there needs a
/// conformance that works there: a dependency (see ``DependencyKey``), a
/// helper it calls (`nonisolated static func`), a response type it decodes
/// (`nonisolated struct Member: Decodable`). For a small response, the
/// effect may instead run on the main actor, where the type's own
/// conformance serves (its awaits still leave the main actor free):
///
/// ```swift
/// return .run { @MainActor send in
///     send(.loaded(try await client.send(Request<Member>.get("/members/me")).value))
/// }
/// ```
public protocol Reducer<State, Action> {
    /// The feature's state.
    associatedtype State
    /// What can happen to the feature.
    associatedtype Action
    /// The type of ``body``: `Never` for a reducer that implements
    /// ``reduce(into:action:)`` itself.
    associatedtype Body = Never

    /// Applies `action` to `state` and returns the effect to run next.
    ///
    /// A reducer with a ``body`` gets this from it: implement one or the other.
    func reduce(into state: inout State, action: Action) -> Effect<Action>

    /// The reducers this feature is made of, run in order for each action.
    @ReducerBuilder<State, Action>
    var body: Body { get }

    /// The reducer that runs this one's logic, built once: the ``body`` of a
    /// reducer that has one (with the bodies of the features inside it), the
    /// reducer itself otherwise.
    ///
    /// Stores and composing reducers call it when they are made, so a body is
    /// not rebuilt for every action. The default implementations are the
    /// only ones a reducer needs.
    func _built() -> any Reducer<State, Action>
}

extension Reducer {
    /// A reducer without a body runs itself.
    public func _built() -> any Reducer<State, Action> { self }
}

extension Reducer where Body == Never {
    /// A reducer that implements ``reduce(into:action:)`` has no body.
    public var body: Never {
        fatalError("\(Self.self) implements reduce(into:action:) and has no body")
    }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
    /// Runs the ``body``.
    ///
    /// Called directly, this builds the body for the one call; stores build it
    /// once (``_built()``).
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        body._built().reduce(into: &state, action: action)
    }

    /// The ``body``, built once, with the bodies of the features inside it.
    public func _built() -> any Reducer<State, Action> {
        body._built()
    }
}

/// A reducer from a closure: a feature's own logic inside its ``Reducer/body``,
/// and small features.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     Scope(state: \.counter, action: \.counter) { Counter() }
///     Reduce { state, action in
///         switch action {
///         case .counter: return .none   // the child has run already
///         case .reset:
///             state.counter = Counter.State()
///             return .none
///         }
///     }
/// }
/// ```
public struct Reduce<State, Action>: Reducer {
    let run: (inout State, Action) -> Effect<Action>

    /// A reducer that runs `reduce`.
    public init(_ reduce: @escaping (inout State, Action) -> Effect<Action>) {
        self.run = reduce
    }

    /// Runs the closure.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        run(&state, action)
    }
}

/// Runs the reducers of a ``ReducerBuilder`` block on the same state and
/// action, in order, and merges their effects: a group inside a body, to
/// hang one modifier on several reducers.
///
/// ```swift
/// CombineReducers {
///     BindingReducer(action: \.binding)
///     Reduce { state, action in … }
/// }
/// .presenting(\.editor, action: \.editor) { Editor() }
/// ```
public struct CombineReducers<State, Action>: Reducer {
    let reducers: any Reducer<State, Action>

    /// A reducer that runs the reducers of `build` in order.
    public init<R: Reducer<State, Action>>(@ReducerBuilder<State, Action> _ build: () -> R) {
        self.reducers = build()._built()
    }

    /// Runs each reducer in order and merges their effects.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        reducers.reduce(into: &state, action: action)
    }
}

/// A reducer that does nothing: an empty ``Reducer/body``.
public struct EmptyReducer<State, Action>: Reducer {
    /// A reducer that changes nothing and starts nothing.
    public init() {}

    /// Returns ``Effect/none``.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        .none
    }
}
