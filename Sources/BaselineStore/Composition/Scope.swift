/// Runs a child feature's reducer on a part of the parent's state, for the
/// parent actions that carry a child action.
///
/// ```swift
/// @CasePathable
/// enum Action { case counter(Counter.Action), reset }
///
/// var body: some Reducer<State, Action> {
///     Scope(state: \.counter, action: \.counter) { Counter() }
///     Reduce { state, action in … }   // the parent's own logic
/// }
/// ```
///
/// The state key path says where the child's state lives; the case key path
/// (an `@CasePathable` enum's case) says which action carries the child's,
/// and turns the child's effects' actions back into the parent's.
public struct Scope<State, Action: CasePathable, Child: Reducer>: Reducer {
    let state: WritableKeyPath<State, Child.State>
    let action: CaseAccess<Action, Child.Action>
    let child: any Reducer<Child.State, Child.Action>

    /// - Parameters:
    ///   - state: Where the child's state lives in the parent's.
    ///   - action: The parent's case that carries the child's actions.
    ///   - child: The child's reducer (built once, with its body).
    public init<ChildState, ChildAction>(
        state: WritableKeyPath<State, ChildState>,
        action: ActionCase<Action, ChildAction>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        self.state = state
        self.action = CaseAccess(action)
        self.child = child()._built()
    }

    /// Runs the child's reducer when `action` carries a child action, and embeds the child's effect.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard let childAction = self.action.extract(action) else { return .none }
        let effect = child.reduce(into: &state[keyPath: self.state], action: childAction)
        return effect.isNone ? .none : effect.map(self.action.embed)
    }
}

/// Runs a child feature's reducer on optional state, while it is present.
/// A child action that arrives while the state is `nil` is ignored.
///
/// ``Reducer/presenting(_:action:child:)`` does more for a child that is
/// presented and dismissed (a sheet, an alert): prefer it there.
public struct IfLet<State, Action: CasePathable, Child: Reducer>: Reducer {
    let state: WritableKeyPath<State, Child.State?>
    let action: CaseAccess<Action, Child.Action>
    let child: any Reducer<Child.State, Child.Action>

    /// Runs `child` on `state` while it is not `nil`; the parameters are as for ``Scope``.
    public init<ChildState, ChildAction>(
        state: WritableKeyPath<State, ChildState?>,
        action: ActionCase<Action, ChildAction>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        self.state = state
        self.action = CaseAccess(action)
        self.child = child()._built()
    }

    /// Runs the child's reducer when `action` carries a child action and the child's state is present.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard let childAction = self.action.extract(action), state[keyPath: self.state] != nil else { return .none }
        // Force-unwrapping is safe: checked just above, and nothing ran in between.
        let effect = child.reduce(into: &state[keyPath: self.state]!, action: childAction)
        return effect.isNone ? .none : effect.map(self.action.embed)
    }
}

/// What a parent's action carries for one element of a collection of child
/// features: the element's id and its action.
///
/// ```swift
/// @CasePathable
/// enum Action { case rows(IdentifiedAction<Row.State.ID, Row.Action>), addRow }
///
/// await store.send(.rows(.element(id: 3, action: .toggle)))
/// ```
public enum IdentifiedAction<ID: Hashable & Sendable, Action> {
    /// An action of the element with this id.
    case element(id: ID, action: Action)
}

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Sendable where Action: Sendable {}

/// Runs a child feature's reducer on the element of a collection that an
/// action names by id. An action for an id no longer present is ignored.
///
/// ```swift
/// ForEachReducer(state: \.rows, action: \.rows) { Row() }
/// ```
public struct ForEachReducer<State, Action: CasePathable, Child: Reducer>: Reducer
where Child.State: Identifiable, Child.State.ID: Sendable {
    let elements: WritableKeyPath<State, [Child.State]>
    let action: CaseAccess<Action, IdentifiedAction<Child.State.ID, Child.Action>>
    let child: any Reducer<Child.State, Child.Action>

    /// Runs `child` on the element of `elements` an action names by id.
    ///
    /// - Parameters:
    ///   - elements: Where the children's states live in the parent's.
    ///   - action: The parent's case that carries an element's id and action.
    ///   - child: The child's reducer (built once, with its body).
    public init<ChildState, ChildAction>(
        state elements: WritableKeyPath<State, [ChildState]>,
        action: ActionCase<Action, IdentifiedAction<ChildState.ID, ChildAction>>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        self.elements = elements
        self.action = CaseAccess(action)
        self.child = child()._built()
    }

    /// Runs the child's reducer on the element `action` names, if it is still in the collection.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        guard case let .element(id, childAction)? = self.action.extract(action),
            let index = state[keyPath: elements].firstIndex(where: { $0.id == id })
        else { return .none }
        let effect = child.reduce(into: &state[keyPath: elements][index], action: childAction)
        guard !effect.isNone else { return .none }
        return effect.identified(in: self.action, id: id)
    }
}

extension Effect {
    /// An element's effect as its parent's, its actions carrying its id (over
    /// plain type parameters: see `presented(in:)`).
    func identified<Root, ID: Hashable & Sendable>(
        in access: CaseAccess<Root, IdentifiedAction<ID, Action>>,
        id: ID
    ) -> Effect<Root> {
        let casePath = access.casePath
        return map { casePath.embed(.element(id: id, action: $0)) }
    }
}
