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
/// Inside the effects of a child run by ``Reducer/presenting(_:action:embed:child:)-34mku``
/// or ``Reducer/stack(_:action:embed:child:)``, it sends the parent the
/// child's dismissal. Anywhere else it does nothing but report the call.
///
/// Which feature it dismisses is settled when it is called, not when it is
/// read: capturing it in a reducer (`.run { [dismiss] _ in … }`) works.
public struct DismissEffect: Sendable {
    private let dismiss: @Sendable () async -> Void

    /// The dismissal of the presented child whose effect runs now: bound
    /// around each of its effects by the presentation, so that the value a
    /// reducer captured finds it when called.
    // A struct, not a bare closure: a task-local of function type crashed
    // in `withValue` in release builds (Swift 6.2).
    @TaskLocal static var presented: DismissEffect?

    /// A dismissal that runs `dismiss`.
    public init(_ dismiss: @escaping @Sendable () async -> Void) {
        self.dismiss = dismiss
    }

    /// Dismisses the feature.
    public func callAsFunction() async {
        await dismiss()
    }
}

extension DismissEffect: DependencyKey {
    /// Inside a presented feature's effects, dismisses it; elsewhere reports
    /// the call and dismisses nothing.
    public static let liveValue = DismissEffect {
        if let presented = DismissEffect.presented {
            await presented.dismiss()
            return
        }
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
