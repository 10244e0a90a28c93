extension Reducer where Action: CasePathable {
    /// Runs `child` on the optional state at `state` while it is presented
    /// (not `nil`): the child first, then this reducer's own logic, which
    /// sees the child's new state.
    ///
    /// ```swift
    /// @CasePathable
    /// enum Action {
    ///     case settings(PresentationAction<Settings.Action>)
    ///     case settingsButtonTapped
    /// }
    ///
    /// var body: some Reducer<State, Action> {
    ///     Reduce { state, action in
    ///         switch action {
    ///         case .settingsButtonTapped:
    ///             state.settings = Settings.State()       // presents
    ///             return .none
    ///         case .settings:
    ///             return .none
    ///         }
    ///     }
    ///     .presenting(\.settings, action: \.settings) { Settings() }
    /// }
    /// ```
    ///
    /// - A `.dismiss` sets the state to `nil` after the parent has seen it;
    ///   the parent may also set it to `nil` itself.
    /// - Whenever the child goes from presented to `nil`, its running effects
    ///   are cancelled. When the child's state is `Identifiable`, so are they
    ///   when the parent replaces it with another child (another id), and a
    ///   child the parent presents in answer to `.dismiss` stays.
    /// - The child's effects get a ``DismissEffect`` (`@Dependency(\.dismiss)`)
    ///   that sends its `.dismiss`.
    /// - A child action that arrives while nothing is presented is ignored.
    /// - The child's effects are cancelled by an id made of `state` alone: two
    ///   features of one type in a store (side by side, or one inside the
    ///   other) that each present at the same key path cancel each other's
    ///   presented effects on dismissal. Give such children distinct state
    ///   types, or present from their parent.
    ///
    /// - Parameters:
    ///   - state: Where the child's state lives; `nil` while it is not presented.
    ///   - action: The parent's case that carries the child's actions and its dismissal.
    ///   - child: The child's reducer (built once, with its body).
    public func presenting<ChildState, ChildAction, Child: Reducer<ChildState, ChildAction>>(
        _ state: WritableKeyPath<State, ChildState?>,
        action: ActionCase<Action, PresentationAction<ChildAction>>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) -> PresentationReducer<Self, Child> {
        // Decided once: only Identifiable children can be told apart.
        let identity: (ChildState) -> AnyHashable? =
            if ChildState.self is any Identifiable.Type { identifier(of:) } else { { _ in nil } }
        return PresentationReducer(
            parent: self,
            state: state,
            action: CaseAccess(action),
            child: child()._built(),
            identity: identity
        )
    }
}

/// The id of an `Identifiable` value, as a hashable value; `nil` for others.
private func identifier<Value>(of value: Value) -> AnyHashable? {
    guard let identifiable = value as? any Identifiable else { return nil }
    return id(of: identifiable)
}

private func id<Value: Identifiable>(of value: Value) -> AnyHashable {
    AnyHashable(value.id)
}

/// A parent feature with an optional child it presents and dismisses; made
/// by ``Reducer/presenting(_:action:child:)``.
public struct PresentationReducer<Parent: Reducer, Child: Reducer>: Reducer where Parent.Action: CasePathable {
    let parent: any Reducer<Parent.State, Parent.Action>
    let state: WritableKeyPath<Parent.State, Child.State?>
    let action: CaseAccess<Parent.Action, PresentationAction<Child.Action>>
    let child: any Reducer<Child.State, Child.Action>
    /// Tells two children apart (their ids), or `nil` when it cannot.
    let identity: (Child.State) -> AnyHashable?

    init(
        parent: Parent,
        state: WritableKeyPath<Parent.State, Child.State?>,
        action: CaseAccess<Parent.Action, PresentationAction<Child.Action>>,
        child: any Reducer<Child.State, Child.Action>,
        identity: @escaping (Child.State) -> AnyHashable?
    ) {
        self.parent = parent._built()
        self.state = state
        self.action = action
        self.child = child
        self.identity = identity
    }

    /// Runs the child for its actions, then the parent, then dismisses and
    /// cancels as described in ``Reducer/presenting(_:action:child:)``.
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        let path = self.state
        let presentation = self.action.extract(action)
        // Key path accesses cost more than the rest: each is made once.
        let presented: AnyHashable?? = state[keyPath: path].map(identity)
        var childEffect = Effect<Parent.Action>.none
        if case let .presented(childAction) = presentation, presented != nil {
            let effect = state[keyPath: path].modify { child.reduce(into: &$0, action: childAction) }
            // Most actions start nothing: no wrapping, so the store's cheap path stays open.
            if let effect, !effect.isNone {
                childEffect = effect.presented(in: self.action).cancellable(id: ChildEffects(path: path))
            }
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        guard let presented else { return childEffect.merged(with: parentEffect) }
        // The same child as before (as far as ids tell): not one the parent just presented.
        let now: AnyHashable?? = state[keyPath: path].map(identity)
        let sameChild = now.map { $0 == presented } ?? false
        let isDismissal = if case .dismiss = presentation { true } else { false }
        if isDismissal, sameChild {
            state[keyPath: path] = nil
        }
        let dismissed = now == nil || !sameChild || isDismissal
        guard dismissed else { return childEffect.merged(with: parentEffect) }
        return .merge([childEffect, parentEffect, .cancel(id: ChildEffects(path: path))])
    }
}

/// The cancellation id of a presented child's effects: its place in the parent's state.
// Key paths are immutable, and this one is only hashed and compared here,
// never applied: a key path into main-actor state (an app whose default
// isolation is the main actor writes those) is not Sendable, yet its identity
// is. `element` wraps a Sendable id.
struct ChildEffects: Hashable, @unchecked Sendable {  // safety: see above
    let path: AnyKeyPath
    var element: AnyHashable?

    init(path: AnyKeyPath, element: AnyHashable? = nil) {
        self.path = path
        self.element = element
    }
}

extension Effect {
    /// A presented child's effect as its parent's: its actions presented, and
    /// its `dismiss` the parent's dismissal. Written over plain type
    /// parameters, so that the functions the effect carries off the main
    /// actor need no conformance of the parent's (which may be the main actor's).
    func presented<Root>(in access: CaseAccess<Root, PresentationAction<Action>>) -> Effect<Root> {
        let casePath = access.casePath
        return map { casePath.embed(.presented($0)) }
            .dismissing { send in await send(casePath.embed(.dismiss)) }
    }

    /// The same effect, whose work's ``DismissEffect`` calls `dismiss` with the work's `send`.
    func dismissing(_ dismiss: @escaping @Sendable (Send<Action>) async -> Void) -> Effect {
        wrappingRuns { send, work in
            let values = DependencyValues.current.with { $0.presentedDismissal = { await dismiss(send) } }
            try await DependencyValues.$current.withValue(values) { try await work() }
        }
    }
}

extension Optional {
    /// Runs `body` on the wrapped value in place, if there is one.
    fileprivate mutating func modify<Result>(_ body: (inout Wrapped) -> Result) -> Result? {
        guard var value = self else { return nil }
        // Taken out while it changes, so that it stays uniquely referenced.
        self = nil
        defer { self = value }
        return body(&value)
    }
}

extension Effect {
    /// Whether this effect does nothing.
    var isNone: Bool {
        if case .none = operation { true } else { false }
    }

    /// Both effects, without building arrays when one (usually both) does nothing.
    func merged(with other: Effect) -> Effect {
        if isNone { return other }
        if other.isNone { return self }
        return .merge([self, other])
    }
}
