import BaselineConcurrency
import Logging
import Observation

/// A feature's runtime: holds its state, runs its reducer for each action,
/// and runs the effects that follow.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { Counter() }
/// store.send(.increment)
/// Text("\(store.count)")                       // views read state directly (Observation)
/// .refreshable { await store.send(.refresh).finish() }
/// ```
///
/// - State is observable: reading `store.state` (or a member, through dynamic
///   member lookup) in a SwiftUI body or `withObservationTracking` tracks it.
///   ``values(of:)->StoreValues<Value>`` gives changes as an `AsyncSequence`, on Linux and on any
///   Apple OS version.
/// - Effects run off the main actor; cancellation ids belong to this store
///   (its root, for scoped stores).
/// - Releasing a store cancels its running effects (debug builds log which,
///   leaving out followed sources, which are meant to run until then).
@MainActor
@dynamicMemberLookup
public final class Store<State, Action> {
    @usableFromInline let readState: @MainActor () -> State
    private let dispatch: @MainActor (Action) -> StoreTask
    @usableFromInline let addObserver:
        @MainActor (@escaping @MainActor (State) -> Void) -> @MainActor @Sendable () -> Void
    /// Keeps the root alive for as long as any store scoped from it.
    private let root: AnyObject

    /// A store running `reducer` from `initialState`.
    ///
    /// - Parameters:
    ///   - initialState: The state the store starts with.
    ///   - logger: Where the store reports effects cancelled by its release.
    ///   - reducer: The feature's reducer.
    ///   - withDependencies: Overrides of the dependencies (``Dependency``)
    ///     this store's reducer and effects, and the stores scoped from it,
    ///     run with. The others are those of the code making the store: the
    ///     live values, in an app.
    public convenience init<R: Reducer>(
        initialState: State,
        logger: Logger = Logger(label: "baseline.store"),
        reducer: () -> R,
        withDependencies: (inout DependencyValues) -> Void = { _ in }
    ) where R.State == State, R.Action == Action {
        let dependencies = DependencyValues.current.with {
            // A store made inside a presented feature's effect is not that feature.
            $0.presentedDismissal = nil
            withDependencies(&$0)
        }
        // Built once, with the store's dependencies: a body that reads one
        // (`Reduce { [client] state, action in … }`) gets the store's.
        let built = DependencyValues.$current.withValue(dependencies) { reducer()._built() }
        let root = StoreRoot(initialState: initialState, reducer: built, dependencies: dependencies, logger: logger)
        self.init(
            root: root,
            readState: { root.state },
            dispatch: { root.send($0) },
            addObserver: { root.addObserver($0) }
        )
    }

    private init(
        root: AnyObject,
        readState: @escaping @MainActor () -> State,
        dispatch: @escaping @MainActor (Action) -> StoreTask,
        addObserver: @escaping @MainActor (@escaping @MainActor (State) -> Void) -> @MainActor @Sendable () -> Void
    ) {
        self.root = root
        self.readState = readState
        self.dispatch = dispatch
        self.addObserver = addObserver
    }

    /// The current state. Reading it inside an observation scope tracks it.
    public var state: State { readState() }

    /// A part of the state: `store.count` reads `store.state.count` (and tracks it).
    public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
        readState()[keyPath: keyPath]
    }

    /// Sends `action`: the reducer runs now, and the returned task stands for
    /// the effects it started.
    @discardableResult
    public func send(_ action: Action) -> StoreTask {
        dispatch(action)
    }

    /// Sends `action`, then suspends while `predicate` holds for the state
    /// (as TCA's `send(_:while:)`). Cancelling the waiting task
    /// cancels the effects the action started.
    ///
    /// ```swift
    /// .refreshable { await store.send(.refresh, while: \.isLoading) }
    /// ```
    public func send(_ action: Action, while predicate: @escaping (State) -> Bool) async {
        let task = send(action)
        let holds = changes { predicate($0) }
        await withTaskCancellationHandler {
            for await stillHolds in holds where !stillHolds { break }
        } onCancel: {
            task.cancel()
        }
    }

    /// The value at `keyPath` now, then each time it changes.
    ///
    /// Works wherever Swift runs (unlike Observation's `Observations`, which
    /// needs the 2026 OS releases). A slow reader gets the latest value;
    /// values in between may be skipped. The sequence ends when the reading
    /// task is cancelled; the observation ends when the sequence is released.
    ///
    /// ```swift
    /// for await count in store.values(of: \.count) { print(count) }
    /// ```
    @inlinable  // specialised where it is called: generic code per action is slow
    public func values<Value: Equatable & Sendable>(of keyPath: KeyPath<State, Value>) -> StoreValues<Value> {
        changes { $0[keyPath: keyPath] }
    }

    /// ``values(of:)-(KeyPath<State,Value>)`` for a value whose `Equatable`
    /// conformance is isolated to the main actor: the default for a type
    /// declared in a module whose default isolation is `MainActor` (an Xcode
    /// 26 app target). The values are compared and read on the main actor.
    @inlinable
    @_disfavoredOverload
    public func values<Value: Equatable>(of keyPath: KeyPath<State, Value>) -> MainActorStoreValues<Value> {
        MainActorStoreValues(channel: channel { $0[keyPath: keyPath] })
    }

    @inlinable
    func changes<Value: Equatable & Sendable>(_ read: @escaping (State) -> Value) -> StoreValues<Value> {
        StoreValues(channel: channel(read))
    }

    /// A channel fed with the value `read` finds in the state, each time it changes.
    @inlinable
    func channel<Value: Equatable>(_ read: @escaping (State) -> Value) -> LatestValueChannel<Value> {
        var last = read(readState())
        let channel = LatestValueChannel(initial: last)
        channel.removeObserver = addObserver { [weak channel] state in
            let value = read(state)
            guard value != last else { return }
            last = value
            channel?.send(value)
        }
        return channel
    }

    // MARK: Scoping

    /// A store for a child feature: its state is a part of this store's, its
    /// actions are embedded into this store's. Effects run in the root store.
    ///
    /// ```swift
    /// CounterView(store: store.scope(state: \.counter, action: \.counter))
    /// ```
    public func scope<ChildState, ChildAction>(
        state keyPath: KeyPath<State, ChildState>,
        action: ActionCase<Action, ChildAction>
    ) -> Store<ChildState, ChildAction> where Action: CasePathable {
        scope(state: keyPath, embed: CaseAccess(action).embed(_:))
    }

    /// A store for a presented child feature (``Reducer/presenting(_:action:child:)``),
    /// or `nil` while nothing is presented; what it sends reaches the child
    /// as `.presented(action)`.
    ///
    /// ```swift
    /// if let login = store.scope(state: \.login, action: \.login) {
    ///     LoginView(store: login)
    /// }
    /// ```
    ///
    /// The child store keeps the last non-nil state it read, so a view that is
    /// still on screen while its state goes away (a sheet animating out)
    /// reads stale but valid state instead of crashing; what it sends
    /// meanwhile is ignored.
    public func scope<ChildState, ChildAction>(
        state keyPath: KeyPath<State, ChildState?>,
        action: ActionCase<Action, PresentationAction<ChildAction>>
    ) -> Store<ChildState, ChildAction>? where Action: CasePathable {
        let embed = CaseAccess(action).embed(_:)
        return scope(state: keyPath, embed: { embed(.presented($0)) })
    }

    /// A store for an optional child feature (``IfLet``), or `nil` while its
    /// state is `nil`; it keeps the last state it read, as the other
    /// optional scope does.
    public func scope<ChildState, ChildAction>(
        state keyPath: KeyPath<State, ChildState?>,
        action: ActionCase<Action, ChildAction>
    ) -> Store<ChildState, ChildAction>? where Action: CasePathable {
        scope(state: keyPath, embed: CaseAccess(action).embed(_:))
    }

    /// A store for each element of a collection of child features (``ForEachReducer``).
    ///
    /// ```swift
    /// ForEach(store.scope(forEach: \.rows, action: \.rows), id: \.state.id) { RowView(store: $0) }
    /// ```
    public func scope<Element: Identifiable, ChildAction>(
        forEach keyPath: KeyPath<State, [Element]>,
        action: ActionCase<Action, IdentifiedAction<Element.ID, ChildAction>>
    ) -> [Store<Element, ChildAction>] where Element.ID: Sendable, Action: CasePathable {
        let embed = CaseAccess(action).embed(_:)
        return scope(forEach: keyPath) { id, action in embed(.element(id: id, action: action)) }
    }

    /// A store for each element of a stack of child features (``Reducer/stack(_:action:child:)``),
    /// bottom first.
    public func scope<Element: Identifiable, ChildAction>(
        forEach keyPath: KeyPath<State, [Element]>,
        action: ActionCase<Action, StackAction<Element.ID, ChildAction>>
    ) -> [Store<Element, ChildAction>] where Element.ID: Sendable, Action: CasePathable {
        let embed = CaseAccess(action).embed(_:)
        return scope(forEach: keyPath) { id, action in embed(.element(id: id, action: action)) }
    }

    private func scope<ChildState, ChildAction>(
        state keyPath: KeyPath<State, ChildState>,
        embed: @escaping (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        let readState = self.readState
        let dispatch = self.dispatch
        let addObserver = self.addObserver
        return Store<ChildState, ChildAction>(
            root: root,
            readState: { readState()[keyPath: keyPath] },
            dispatch: { dispatch(embed($0)) },
            addObserver: { observer in addObserver { observer($0[keyPath: keyPath]) } }
        )
    }

    private func scope<ChildState, ChildAction>(
        state keyPath: KeyPath<State, ChildState?>,
        embed: @escaping (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction>? {
        guard let initial = readState()[keyPath: keyPath] else { return nil }
        let readState = self.readState
        let dispatch = self.dispatch
        let addObserver = self.addObserver
        let lastValue = MainActorBox(initial)
        return Store<ChildState, ChildAction>(
            root: root,
            readState: {
                if let current = readState()[keyPath: keyPath] { lastValue.value = current }
                return lastValue.value
            },
            dispatch: { dispatch(embed($0)) },
            addObserver: { observer in
                addObserver { state in
                    guard let child = state[keyPath: keyPath] else { return }
                    observer(child)
                }
            }
        )
    }

    private func scope<Element: Identifiable, ChildAction>(
        forEach keyPath: KeyPath<State, [Element]>,
        embed: @escaping (Element.ID, ChildAction) -> Action
    ) -> [Store<Element, ChildAction>] where Element.ID: Sendable {
        readState()[keyPath: keyPath].compactMap { element in
            let id = element.id
            let path: KeyPath<State, Element?> = keyPath.appending(path: \[Element].[id: id])
            return scope(state: path, embed: { embed(id, $0) })
        }
    }
}

extension Array where Element: Identifiable {
    /// The element with `id`, for key paths into collections of child features.
    subscript(id id: Element.ID) -> Element? {
        first { $0.id == id }
    }
}

/// A mutable box for main-actor state captured by closures.
@MainActor
final class MainActorBox<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// The store that owns the state: runs the reducer and the effects.
///
/// Observable by hand rather than with `@Observable`: in a generic class the
/// macro's key path (`\.state`) is instantiated at run time on every access,
/// which costs microseconds. Here it is made once per store.
@MainActor
final class StoreRoot<State, Action>: Observable {
    private var storage: State
    private let registrar = ObservationRegistrar()
    private var stateKeyPath: KeyPath<StoreRoot, State>?
    private let reducer: any Reducer<State, Action>
    private let runner: EffectRunner<Action>
    /// Bound while the reducer runs and its effects start (which inherit them).
    private let dependencies: DependencyValues
    /// An array, not a dictionary: walked on every send, rarely changed.
    private var observers: [(id: UInt64, notify: @MainActor (State) -> Void)] = []
    private var nextObserverID: UInt64 = 0
    private let logger: Logger

    init(
        initialState: State,
        reducer: any Reducer<State, Action>,
        dependencies: DependencyValues,
        logger: Logger
    ) {
        self.storage = initialState
        self.reducer = reducer
        self.dependencies = dependencies
        self.logger = logger
        // Effects send through a box filled once `self` exists; it holds the
        // store weakly, so running effects never keep a released store alive.
        let target = MainActorBox<(@MainActor (Action) -> StoreTask)?>(nil)
        self.runner = EffectRunner(logger: logger) { action in
            target.value?(action) ?? .none
        }
        self.stateKeyPath = \StoreRoot.state
        target.value = { [weak self] action in self?.send(action) ?? .none }
    }

    deinit {
        let cancelled = runner.cancelAllAtRelease()
        #if DEBUG
        if !cancelled.isEmpty {
            logger.warning(
                "A store was released with effects still running; they were cancelled",
                metadata: ["effects": .array(cancelled.map { .string($0) })]
            )
        }
        #endif
    }

    /// The state; reading it in an observation scope tracks it.
    var state: State {
        if let stateKeyPath { registrar.access(self, keyPath: stateKeyPath) }
        return storage
    }

    func send(_ action: Action) -> StoreTask {
        // Effects are tasks made inside this scope: they inherit the values.
        DependencyValues.$current.withValue(dependencies) { reduce(action) }
    }

    private func reduce(_ action: Action) -> StoreTask {
        let effect: Effect<Action>
        if let stateKeyPath {
            registrar.willSet(self, keyPath: stateKeyPath)
            effect = reducer.reduce(into: &storage, action: action)
            registrar.didSet(self, keyPath: stateKeyPath)
        } else {
            effect = reducer.reduce(into: &storage, action: action)
        }
        if !observers.isEmpty {
            for observer in observers { observer.notify(storage) }
        }
        if case .none = effect.operation { return .none }  // the common case, kept cheap
        return runner.start(effect, for: action)
    }

    func addObserver(_ observer: @escaping @MainActor (State) -> Void) -> @MainActor @Sendable () -> Void {
        nextObserverID += 1
        let id = nextObserverID
        observers.append((id, observer))
        return { [weak self] in self?.observers.removeAll { $0.id == id } }
    }
}
