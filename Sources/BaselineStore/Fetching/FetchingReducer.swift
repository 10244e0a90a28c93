import BaselineConcurrency

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
    ///   while the same query is followed does nothing (a view's `.task` that
    ///   runs again costs no read); after a stop or a failure it starts over.
    /// - **Query changes.** After every action this reducer sees, while
    ///   following, the query is read again; when it differs from the one the
    ///   running source was started for (changed by this reducer or one
    ///   before it in the body: a `BindingReducer`, say), the running effect
    ///   is cancelled, ``Fetched/isLoading`` set, and an effect for the new
    ///   query started. A cancelled effect delivers nothing more, so no
    ///   result of an older query arrives after one of the newer. The value
    ///   shown meanwhile is the last one, as a search field's list keeps its
    ///   rows while typing. A change made where this reducer does not run (a
    ///   parent writing into the child's state) is seen at the next action
    ///   that reaches it; send ``FetchAction/start`` after such a change.
    /// - **Stop.** Following ends on ``FetchAction/stop``, when the sequence
    ///   throws (``FetchAction/failed(_:)``, which sets ``Fetched/loadError``
    ///   and keeps the value) or ends (``FetchAction/finished``), when the
    ///   store is released, and when a feature presented with
    ///   ``Reducer/presenting(_:action:child:)`` or pushed with
    ///   ``Reducer/stack(_:action:child:)`` is dismissed or popped (their
    ///   effects are cancelled). ``IfLet`` and ``ForEachReducer`` do not
    ///   cancel a removed child's effects: send `.stop` before removing one.
    /// - **Whose it is.** The source belongs to the store, not to the task
    ///   that sent `.start`: a query change replaces its effect with one
    ///   started by the action that changed it, so `await store.send(.todos(.start)).finish()`
    ///   returns at the first change. Stop it with `.stop` (a view's
    ///   `onDisappear`), or let the store's release end it.
    /// - **Tests.** Every value is an action and a state change: an
    ///   exhaustive `TestStore` fails a test that does not assert it (or
    ///   skip it deliberately with `skipReceivedActions()`).
    ///
    /// Each start's effect has its own cancellation id, so features of one
    /// type in a stack or a list each stop only their own source.
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
                if !state[keyPath: path].isFollowing {
                    state[keyPath: path].isFollowing = true
                    state[keyPath: path].isLoading = true
                }
                starting = true  // once the feature has run: the query is the state's after this action
            case .stop:
                state[keyPath: path].isFollowing = false
                state[keyPath: path].isLoading = false
                own = stopSource(in: &state[keyPath: path])
            case let .loaded(value):
                // A cancelled effect sends nothing, so a value here is the current query's.
                state[keyPath: path].value = value
                state[keyPath: path].isLoading = false
                state[keyPath: path].loadError = nil
            case let .failed(failure):
                state[keyPath: path].loadError = failure
                state[keyPath: path].isLoading = false
                state[keyPath: path].isFollowing = false
                state[keyPath: path].source = nil
            case .finished:
                state[keyPath: path].isLoading = false
                state[keyPath: path].isFollowing = false
                state[keyPath: path].source = nil
            }
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        // Compared with the query the source was started for, not with the
        // state before this reducer: a reducer that ran earlier in the body
        // (a BindingReducer setting the search) changes it before we look.
        if state[keyPath: path].isFollowing, starting || state[keyPath: path].source != nil {
            let now = query(state)
            let running = state[keyPath: path].source
            if running == nil || running?.query as? Query != now {
                state[keyPath: path].isLoading = true
                let stop = stopSource(in: &state[keyPath: path])
                let id = FetchingSources.next()
                state[keyPath: path].source = (id, now)
                own = own.merged(with: stop).merged(with: start(now, id: id))
            }
        }
        return own.merged(with: parentEffect)
    }

    /// Forgets the running source and returns the effect that cancels it.
    private func stopSource(in fetched: inout Fetched<Value>) -> Effect<Parent.Action> {
        guard let running = fetched.source else { return .none }
        fetched.source = nil
        return .cancel(id: FetchEffects(path: state, source: running.id))
    }

    /// The effect that follows the source for `query`, as source `id`.
    private func start(_ query: Query, id: UInt64) -> Effect<Parent.Action> {
        Effect.following(query, with: follow, in: action).cancellable(id: FetchEffects(path: state, source: id))
    }
}

/// Numbers each source a `fetching` reducer starts, across the process.
enum FetchingSources {
    private static let counter = LockedValue<UInt64>(0)

    static func next() -> UInt64 {
        counter.withLock { value in
            value &+= 1
            return value
        }
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
    /// Which start of the source: two features of one type (in a stack, a
    /// list) follow at the same key path, each its own source.
    let source: UInt64
}
