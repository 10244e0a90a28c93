/// Builds a ``Reducer/body`` from the reducers listed in it: they run in
/// order for each action, and their effects are merged.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     BindingReducer(action: \.binding)
///     if isLogging {
///         Reduce { state, action in … }
///     }
///     Reduce { state, action in … }
/// }
/// ```
///
/// Each listed feature that has a body of its own is built once, with the
/// body that lists it.
@resultBuilder
public enum ReducerBuilder<State, Action> {
    /// A reducer that implements `reduce(into:action:)` is kept as it is.
    public static func buildExpression<R: Reducer<State, Action>>(_ reducer: R) -> R where R.Body == Never {
        reducer
    }

    /// A feature with a body of its own: its body, built now.
    @_disfavoredOverload
    public static func buildExpression<R: Reducer<State, Action>>(_ reducer: R) -> BuiltReducer<State, Action> {
        BuiltReducer(reducer)
    }

    /// An empty body.
    public static func buildBlock() -> EmptyReducer<State, Action> {
        EmptyReducer()
    }

    /// The first reducer of a body.
    public static func buildPartialBlock<R: Reducer<State, Action>>(first: R) -> R {
        first
    }

    /// The reducers so far, then `next`.
    public static func buildPartialBlock<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
        accumulated: First,
        next: Second
    ) -> ReducerSequence<First, Second> {
        ReducerSequence(first: accumulated, second: next)
    }

    /// An `if` without `else`: its reducers run when the condition held as
    /// the body was built.
    public static func buildOptional<R: Reducer<State, Action>>(_ reducer: R?) -> OptionalReducer<R> {
        OptionalReducer(wrapped: reducer)
    }

    /// The `if` branch of an `if`/`else` or the first `case` of a `switch`.
    public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
        first: First
    ) -> EitherReducer<First, Second> {
        EitherReducer(choice: .first(first))
    }

    /// The `else` branch, or a later `case` of a `switch`.
    public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
        second: Second
    ) -> EitherReducer<First, Second> {
        EitherReducer(choice: .second(second))
    }

    /// An `if #available` branch.
    public static func buildLimitedAvailability<R: Reducer<State, Action>>(_ reducer: R) -> BuiltReducer<State, Action>
    {
        BuiltReducer(reducer)
    }
}

/// A feature with a body, built once; what ``ReducerBuilder`` makes of such
/// a feature listed in another's body.
public struct BuiltReducer<State, Action>: Reducer {
    let built: any Reducer<State, Action>

    /// Builds `reducer`'s body (or takes `reducer` as it is, when it has none).
    public init<R: Reducer<State, Action>>(_ reducer: R) {
        self.built = reducer._built()
    }

    /// Runs the built reducer.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        built.reduce(into: &state, action: action)
    }
}

/// Two reducers in a row; what ``ReducerBuilder`` makes of a body's list.
public struct ReducerSequence<First: Reducer, Second: Reducer<First.State, First.Action>>: Reducer {
    let first: First
    let second: Second

    /// Runs `first`, then `second`, which sees the state `first` left.
    public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
        let effect = first.reduce(into: &state, action: action)
        return effect.merged(with: second.reduce(into: &state, action: action))
    }
}

/// A reducer that may be absent; what ``ReducerBuilder`` makes of an `if`.
public struct OptionalReducer<Wrapped: Reducer>: Reducer {
    let wrapped: Wrapped?

    /// Runs the wrapped reducer, if there is one.
    public func reduce(into state: inout Wrapped.State, action: Wrapped.Action) -> Effect<Wrapped.Action> {
        wrapped?.reduce(into: &state, action: action) ?? .none
    }
}

/// One of two reducers; what ``ReducerBuilder`` makes of `if`/`else` and `switch`.
public struct EitherReducer<First: Reducer, Second: Reducer<First.State, First.Action>>: Reducer {
    enum Choice {
        case first(First)
        case second(Second)
    }

    let choice: Choice

    /// Runs the chosen reducer.
    public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
        switch choice {
        case let .first(reducer): reducer.reduce(into: &state, action: action)
        case let .second(reducer): reducer.reduce(into: &state, action: action)
        }
    }
}
