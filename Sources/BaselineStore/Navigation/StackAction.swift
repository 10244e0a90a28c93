/// What a parent's action carries for a stack of child features (screens
/// pushed on a navigation stack), each named by its state's id.
///
/// ```swift
/// @CasePathable
/// enum Action {
///     case path(StackAction<Photo.ID, PhotoDetail.Action>)
///     case photoTapped(Photo)      // the parent pushes: state.path.append(…)
/// }
/// ```
public enum StackAction<ID: Hashable & Sendable, Action> {
    /// An action of the element with this id.
    case element(id: ID, action: Action)
    /// Pops the element with this id and every element above it; their
    /// effects are cancelled. An element sends it itself through ``DismissEffect``.
    case popFrom(id: ID)
}

extension StackAction: Equatable where Action: Equatable {}
extension StackAction: Sendable where Action: Sendable {}

extension Reducer where Action: CasePathable {
    /// Runs `child` on the element of the stack at `state` that an action
    /// names: the element first, then this reducer's own logic.
    ///
    /// ```swift
    /// var body: some Reducer<State, Action> {
    ///     Reduce { state, action in … }   // pushes with state.path.append(…)
    ///         .stack(\.path, action: \.path) { PhotoDetail() }
    /// }
    /// ```
    ///
    /// - Push by appending to the stack in the parent's reducer; pop with
    ///   `.popFrom(id:)` (after the parent has seen it; elements the parent
    ///   pushes in answer stay), or by removing elements in the parent's reducer.
    /// - Whenever an element leaves the stack, its running effects are cancelled.
    /// - An element's effects get a ``DismissEffect`` (`@Dependency(\.dismiss)`)
    ///   that pops it (and what is above it).
    /// - An action for an id no longer on the stack is ignored.
    ///
    /// - Parameters:
    ///   - state: Where the stack lives, bottom first.
    ///   - action: The parent's case that carries the elements' actions and pops.
    ///   - child: The elements' reducer (built once, with its body).
    public func stack<ChildState, ChildAction, Child: Reducer<ChildState, ChildAction>>(
        _ state: WritableKeyPath<State, [ChildState]>,
        action: ActionCase<Action, StackAction<ChildState.ID, ChildAction>>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) -> StackReducer<Self, Child> where ChildState: Identifiable, ChildState.ID: Sendable {
        StackReducer(parent: self._built(), state: state, action: CaseAccess(action), child: child()._built())
    }
}

/// A parent feature with a stack of child features; made by
/// ``Reducer/stack(_:action:child:)``.
public struct StackReducer<Parent: Reducer, Child: Reducer>: Reducer
where Parent.Action: CasePathable, Child.State: Identifiable, Child.State.ID: Sendable {
    let parent: any Reducer<Parent.State, Parent.Action>
    let state: WritableKeyPath<Parent.State, [Child.State]>
    let action: CaseAccess<Parent.Action, StackAction<Child.State.ID, Child.Action>>
    let child: any Reducer<Child.State, Child.Action>

    /// Runs the element's reducer for its actions, then the parent, then pops
    /// and cancels as described in ``Reducer/stack(_:action:child:)``.
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        let stackAction = self.action.extract(action)
        let before = state[keyPath: self.state].map(\.id)
        var childEffect = Effect<Parent.Action>.none
        if case let .element(id, childAction) = stackAction,
            let index = state[keyPath: self.state].firstIndex(where: { $0.id == id })
        {
            let effect = child.reduce(into: &state[keyPath: self.state][index], action: childAction)
            // Most actions start nothing: no wrapping, so the store's cheap path stays open.
            if !effect.isNone {
                childEffect = effect.inStack(self.action, id: id)
                    .cancellable(id: ChildEffects(path: self.state, element: AnyHashable(id)))
            }
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        if case let .popFrom(id) = stackAction, let index = before.firstIndex(of: id) {
            // What was at and above the element when the action came.
            let popped = Set(before[index...])
            state[keyPath: self.state].removeAll { popped.contains($0.id) }
        }
        let after = state[keyPath: self.state]
        // The common case, nothing popped: no set to build.
        if after.count == before.count, zip(after, before).allSatisfy({ $0.id == $1 }) {
            return childEffect.merged(with: parentEffect)
        }
        let remaining = Set(after.map(\.id))
        let cancels = before.filter { !remaining.contains($0) }.map { id in
            Effect<Parent.Action>.cancel(id: ChildEffects(path: self.state, element: AnyHashable(id)))
        }
        return .merge([childEffect, parentEffect] + cancels)
    }
}

extension Effect {
    /// An element's effect as its parent's: its actions carry its id, and its
    /// `dismiss` pops it. Written over plain type parameters, so that the
    /// functions the effect carries off the main actor need no conformance of
    /// the parent's (which may be the main actor's).
    func inStack<Root, ID: Hashable & Sendable>(
        _ access: CaseAccess<Root, StackAction<ID, Action>>,
        id: ID
    ) -> Effect<Root> {
        let casePath = access.casePath
        return map { casePath.embed(.element(id: id, action: $0)) }
            .dismissing { send in await send(casePath.embed(.popFrom(id: id))) }
    }
}
