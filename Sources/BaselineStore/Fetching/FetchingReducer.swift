extension Reducer where Action: CasePathable {
    /// Keeps the ``Fetched`` value at `state` following `values`: a sequence
    /// of the source's values now and after every change, such as a live
    /// database query.
    ///
    /// ```swift
    /// Reduce { state, action in … }
    ///     .fetching(\.savedPhotos, action: \.savedPhotos) { database.live(SavedPhoto.all()) }
    /// ```
    ///
    /// See ``fetching(_:action:query:values:)`` for a source that depends on
    /// state, and for the lifetime.
    public func fetching<Value: Sendable, Values: AsyncSequence & SendableMetatype>(
        _ state: WritableKeyPath<State, Fetched<Value>>,
        action: ActionCase<Action, FetchAction<Value>>,
        values: @escaping @Sendable () -> Values
    ) -> FetchingReducer<Self, Value, NoQuery> where Values.Element == Value {
        fetching(state, action: action, query: { _ in NoQuery() }, values: { _ in values() })
    }

    /// Keeps the ``Fetched`` value at `state` following the source that
    /// `values` gives for the current `query`, starting over when the query
    /// changes.
    ///
    /// ```swift
    /// Reduce { state, action in … }
    ///     .fetching(\.todos, action: \.todos, query: \.search) { search in
    ///         database.live(Todo.matching(search))
    ///     }
    /// ```
    ///
    /// The feature runs it as a reducer, before its own logic, which sees the
    /// new value (to drop a selection that is no longer listed, say):
    ///
    /// - **Start.** ``FetchAction/start`` sets ``Fetched/isFollowing`` and
    ///   ``Fetched/isLoading`` and starts an effect that iterates `values`;
    ///   each element arrives as ``FetchAction/loaded(_:)``. Starting again
    ///   restarts it.
    /// - **Query changes.** After every action, while following, the query
    ///   is read again; when it differs from the one the running source was
    ///   started for (whichever reducer of the body changed it: a
    ///   `BindingReducer` before this one, say), the running effect is cancelled,
    ///   ``Fetched/isLoading`` set, and an effect for the new query started.
    ///   A cancelled effect delivers nothing more, so no result of an older
    ///   query arrives after one of the newer. The value shown meanwhile is
    ///   the last one, as a search field's list keeps its rows while typing.
    /// - **Stop.** Following ends on ``FetchAction/stop``, when the sequence
    ///   throws (``FetchAction/failed(_:)``, which sets ``Fetched/loadError``
    ///   and keeps the value) or ends (``FetchAction/finished``), and when the
    ///   store is released or the feature holding the state is dismissed
    ///   (their effects are cancelled). The observation belongs to the store,
    ///   not to the task that sent `.start`: its effect is replaced when the
    ///   query changes.
    /// - **Tests.** Every value is an action and a state change: an
    ///   exhaustive `TestStore` fails a test that does not assert it (or
    ///   skip it deliberately with `skipReceivedActions()`).
    ///
    /// The effect is cancelled by an id made of `state` alone: two features
    /// of one type side by side in one store, each following at the same key
    /// path, replace each other's effect. Give them distinct state types.
    ///
    /// - Parameters:
    ///   - state: Where the value lives.
    ///   - action: The feature's case that carries the value's actions.
    ///   - query: What the source depends on: a key path to state (`\.search`)
    ///     or a function of it.
    ///   - values: The source for a query; iterated off the main actor.
    public func fetching<Value: Sendable, Query: Equatable & Sendable, Values: AsyncSequence & SendableMetatype>(
        _ state: WritableKeyPath<State, Fetched<Value>>,
        action: ActionCase<Action, FetchAction<Value>>,
        query: @escaping (State) -> Query,
        values: @escaping @Sendable (Query) -> Values
    ) -> FetchingReducer<Self, Value, Query> where Values.Element == Value {
        FetchingReducer(
            parent: self,
            state: state,
            action: CaseAccess(action),
            query: query,
            follow: { query, send in
                for try await value in values(query) { await send(.loaded(value)) }
            }
        )
    }
}

/// The query of a source that depends on nothing.
public struct NoQuery: Equatable, Sendable {}

/// A feature whose state holds a ``Fetched`` value following a source; made
/// by ``Reducer/fetching(_:action:query:values:)``.
public struct FetchingReducer<Parent: Reducer, Value: Sendable, Query: Equatable & Sendable>: Reducer
where Parent.Action: CasePathable {
    typealias Follow = @Sendable (Query, Send<FetchAction<Value>>) async throws -> Void

    let parent: any Reducer<Parent.State, Parent.Action>
    let state: WritableKeyPath<Parent.State, Fetched<Value>>
    let action: CaseAccess<Parent.Action, FetchAction<Value>>
    let query: (Parent.State) -> Query
    let follow: Follow

    init(
        parent: Parent,
        state: WritableKeyPath<Parent.State, Fetched<Value>>,
        action: CaseAccess<Parent.Action, FetchAction<Value>>,
        query: @escaping (Parent.State) -> Query,
        follow: @escaping Follow
    ) {
        self.parent = parent._built()
        self.state = state
        self.action = action
        self.query = query
        self.follow = follow
    }

    /// Applies the value's own actions, runs the feature, then restarts the
    /// source if the query changed (see ``Reducer/fetching(_:action:query:values:)``).
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        let path = self.state
        var own = Effect<Parent.Action>.none
        var starting = false
        if let fetch = self.action.extract(action) {
            switch fetch {
            case .start:
                state[keyPath: path].isFollowing = true
                state[keyPath: path].isLoading = true
                starting = true  // once the feature has run: the query is the state's after this action
            case .stop:
                state[keyPath: path].isFollowing = false
                state[keyPath: path].isLoading = false
                state[keyPath: path].followedQuery = nil
                own = .cancel(id: FetchEffects(path: path))
            case let .loaded(value):
                // A cancelled effect sends nothing, so a value here is the current query's.
                state[keyPath: path].value = value
                state[keyPath: path].isLoading = false
                state[keyPath: path].loadError = nil
            case let .failed(failure):
                state[keyPath: path].loadError = failure
                state[keyPath: path].isLoading = false
                state[keyPath: path].isFollowing = false
                state[keyPath: path].followedQuery = nil
            case .finished:
                state[keyPath: path].isLoading = false
                state[keyPath: path].isFollowing = false
                state[keyPath: path].followedQuery = nil
            }
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        // Compared with the query the source was started for, not with the
        // state before this reducer: a reducer that ran earlier in the body
        // (a BindingReducer setting the search) changes it before we look.
        if state[keyPath: path].isFollowing, starting || state[keyPath: path].followedQuery != nil {
            let now = query(state)
            if starting || state[keyPath: path].followedQuery as? Query != now {
                state[keyPath: path].isLoading = true
                state[keyPath: path].followedQuery = now
                own = own.merged(with: start(now))
            }
        }
        return own.merged(with: parentEffect)
    }

    /// The effect that follows the source for `query`, replacing any running one.
    private func start(_ query: Query) -> Effect<Parent.Action> {
        Effect.following(query, with: follow, in: action).cancellable(
            id: FetchEffects(path: state),
            cancelInFlight: true
        )
    }
}

extension Effect {
    /// The effect that runs `follow` for `query` and reports its end. Written
    /// over plain type parameters, so that what it carries off the main actor
    /// needs no conformance of the feature's (which may be the main actor's).
    static func following<Value: Sendable, Query: Sendable>(
        _ query: Query,
        with follow: @escaping @Sendable (Query, Send<FetchAction<Value>>) async throws -> Void,
        in access: CaseAccess<Action, FetchAction<Value>>
    ) -> Effect {
        let casePath = access.casePath
        return .run(name: "follow \(Value.self)") { send in
            let own = Send<FetchAction<Value>> { send(casePath.embed($0)) }
            do {
                try await follow(query, own)
            } catch {
                // Cancelled: the query changed, or the store went. Nothing to report.
                if Task.isCancelled { return }
                await own(.failed(FetchFailure(error)))
                return
            }
            await own(.finished)
        }
    }
}

/// The cancellation id of a followed source's effect: its place in the state.
// Key paths are immutable, and this one is only hashed and compared, never
// applied: a key path into main-actor state is not Sendable, yet its identity is.
struct FetchEffects: Hashable, @unchecked Sendable {  // safety: see above
    let path: AnyKeyPath
}
