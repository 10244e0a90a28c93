/// Runs a child feature's reducer on a part of the parent's state, for the
/// parent actions that carry a child action.
///
/// ```swift
/// CombineReducers(
///     Scope(state: \.counter, action: { if case let .counter(a) = $0 { a } else { nil } },
///           embed: AppFeature.Action.counter) { Counter() },
///     Reduce { state, action in … }   // the parent's own logic
/// )
/// ```
public struct Scope<State, Action: Sendable, Child: Reducer>: Reducer {
    let state: WritableKeyPath<State, Child.State>
    let extract: (Action) -> Child.Action?
    let embed: @Sendable (Child.Action) -> Action
    let child: Child

    /// - Parameters:
    ///   - state: Where the child's state lives in the parent's.
    ///   - extract: The child action a parent action carries, if any.
    ///   - embed: How a child action (from the child's effects) becomes a parent action.
    ///   - child: The child's reducer.
    public init(
        state: WritableKeyPath<State, Child.State>,
        action extract: @escaping (Action) -> Child.Action?,
        embed: @escaping @Sendable (Child.Action) -> Action,
        child: () -> Child
    ) {
        self.state = state
        self.extract = extract
        self.embed = embed
        self.child = child()
    }

    /// Runs the child's reducer when `action` carries a child action, and embeds the child's effect.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard let childAction = extract(action) else { return .none }
        return child.reduce(into: &state[keyPath: self.state], action: childAction).map(embed)
    }
}

/// Runs a child feature's reducer on optional state, while it is present.
/// A child action that arrives while the state is `nil` is ignored.
public struct IfLet<State, Action: Sendable, Child: Reducer>: Reducer {
    let state: WritableKeyPath<State, Child.State?>
    let extract: (Action) -> Child.Action?
    let embed: @Sendable (Child.Action) -> Action
    let child: Child

    /// Runs `child` on `state` while it is not `nil`; the parameters are as for ``Scope``.
    public init(
        state: WritableKeyPath<State, Child.State?>,
        action extract: @escaping (Action) -> Child.Action?,
        embed: @escaping @Sendable (Child.Action) -> Action,
        child: () -> Child
    ) {
        self.state = state
        self.extract = extract
        self.embed = embed
        self.child = child()
    }

    /// Runs the child's reducer when `action` carries a child action and the child's state is present.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard let childAction = extract(action), state[keyPath: self.state] != nil else { return .none }
        // Force-unwrapping is safe: checked just above, and nothing ran in between.
        return child.reduce(into: &state[keyPath: self.state]!, action: childAction).map(embed)
    }
}

/// Runs a child feature's reducer on the element of a collection that an
/// action names by id. An action for an id no longer present is ignored.
public struct ForEachReducer<State, Action: Sendable, Child: Reducer>: Reducer
where Child.State: Identifiable, Child.State.ID: Sendable {
    let elements: WritableKeyPath<State, [Child.State]>
    let extract: (Action) -> (Child.State.ID, Child.Action)?
    let embed: @Sendable (Child.State.ID, Child.Action) -> Action
    let child: Child

    /// Runs `child` on the element of `elements` an action names by id.
    ///
    /// - Parameters:
    ///   - elements: Where the children's states live in the parent's.
    ///   - extract: The element id and child action a parent action carries, if any.
    ///   - embed: How an element's child action becomes a parent action.
    ///   - child: The child's reducer.
    public init(
        state elements: WritableKeyPath<State, [Child.State]>,
        action extract: @escaping (Action) -> (Child.State.ID, Child.Action)?,
        embed: @escaping @Sendable (Child.State.ID, Child.Action) -> Action,
        child: () -> Child
    ) {
        self.elements = elements
        self.extract = extract
        self.embed = embed
        self.child = child()
    }

    /// Runs the child's reducer on the element `action` names, if it is still in the collection.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard let (id, childAction) = extract(action),
            let index = state[keyPath: elements].firstIndex(where: { $0.id == id })
        else { return .none }
        let embed = self.embed
        return child.reduce(into: &state[keyPath: elements][index], action: childAction).map { embed(id, $0) }
    }
}
