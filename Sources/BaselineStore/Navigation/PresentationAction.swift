/// What a parent's action carries for a presented child feature: one of the
/// child's actions, or its dismissal.
///
/// ```swift
/// @CasePathable
/// enum Action {
///     case settings(PresentationAction<Settings.Action>)
///     case settingsButtonTapped
/// }
/// ```
public enum PresentationAction<Action> {
    /// An action of the presented child.
    case presented(Action)
    /// Dismisses the child: its state becomes `nil` and its effects are
    /// cancelled. The child sends it itself through ``DismissEffect``.
    case dismiss
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Sendable where Action: Sendable {}
