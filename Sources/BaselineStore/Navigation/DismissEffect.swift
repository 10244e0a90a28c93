/// Dismisses the presented feature that calls it, from one of its effects.
///
/// ```swift
/// struct Settings: Reducer {
///     @Dependency(\.dismiss) var dismiss
///
///     func reduce(into state: inout State, action: Action) -> Effect<Action> {
///         switch action {
///         case .saveTapped:
///             return .run { [settings = state] _ in
///                 try await save(settings)
///                 await dismiss()
///             }
///         …
/// ```
///
/// Inside the effects of a child run by ``Reducer/presenting(_:action:child:)``
/// or ``Reducer/stack(_:action:child:)``, it sends the parent the
/// child's dismissal, whatever value it is (the live one, a test's
/// override). Anywhere else it runs its own closure: the live value reports
/// the call and dismisses nothing.
///
/// Which feature it dismisses is settled when it is called, not when it is
/// read: capturing it in a reducer (`.run { [dismiss] _ in … }`) works.
public struct DismissEffect: Sendable {
    private let dismiss: @Sendable () async -> Void

    /// A dismissal that runs `dismiss` outside a presented feature's effects.
    public init(_ dismiss: @escaping @Sendable () async -> Void) {
        self.dismiss = dismiss
    }

    /// Dismisses the presented feature whose effect calls it; elsewhere, runs
    /// this value's closure.
    public func callAsFunction() async {
        if let presented = DependencyValues.current.presentedDismissal {
            await presented()
        } else {
            await dismiss()
        }
    }
}

extension DismissEffect: DependencyKey {
    /// Outside a presented feature's effects: reports the call, dismisses nothing.
    public static let liveValue = DismissEffect {
        DependencyValues.current.reportUnimplemented(
            "dismiss() was called outside the effects of a presented feature; nothing was dismissed",
            #fileID,
            #filePath,
            #line
        )
    }
    /// As ``liveValue``: it dismisses a presented feature in tests too.
    public static let testValue = liveValue
}

extension DependencyValues {
    /// Dismisses the presented feature whose effect calls it.
    public var dismiss: DismissEffect {
        get { self[DismissEffect.self] }
        set { self[DismissEffect.self] = newValue }
    }
}
