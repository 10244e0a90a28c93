/// The dependencies a store's reducer and effects run with: each key's live
/// or test value, unless overridden.
///
/// A ``Store`` runs its reducer, and starts its effects, with its own
/// values bound to ``current``; stores scoped from it share them. Override
/// them for one store when you make it:
///
/// ```swift
/// let store = Store(initialState: Counter.State()) {
///     Counter()
/// } withDependencies: {
///     $0.factClient = .offline
/// }
/// ```
public struct DependencyValues: Sendable {
    /// Which value a key gives when it is not overridden.
    public enum Context: Sendable, Equatable {
        /// ``DependencyKey/liveValue``: apps.
        case live
        /// ``DependencyKey/testValue``: test stores.
        case test
    }

    /// The values the code running now sees: a store's, inside its reducer
    /// and its effects; the live values elsewhere.
    @TaskLocal public static var current = DependencyValues(context: .live)

    /// Which value a key that is not overridden gives.
    public var context: Context

    /// Reports a call of a dependency's endpoint that the test did not
    /// override (``unimplemented(_:fileID:filePath:line:)``), with where the
    /// endpoint was declared. A `TestStore` records it as a test failure; the
    /// default prints it.
    public var reportUnimplemented:
        @Sendable (_ message: String, _ fileID: StaticString, _ filePath: StaticString, _ line: UInt) -> Void

    private var overrides: [ObjectIdentifier: any Sendable] = [:]

    /// The dismissal of the presented child whose effect runs now: set by the
    /// presentation around each of the child's effects, found by any
    /// ``DismissEffect`` when called. Part of these values, not a task-local
    /// of its own, so that a store binding its values for an action an
    /// effect sent (a parent's effects start there) leaves it behind.
    var presentedDismissal: (@Sendable () async -> Void)?

    /// Values that give each key's value for `context`, none overridden.
    public init(context: Context) {
        self.context = context
        self.reportUnimplemented = { message, fileID, _, line in
            print("Baseline: \(message) (\(fileID):\(line))")
        }
    }

    /// The value for `key`: its override, or else its live or test value.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
        get {
            if let value = overrides[ObjectIdentifier(key)] as? Key.Value { return value }
            return context == .live ? Key.liveValue : Key.testValue
        }
        set {
            overrides[ObjectIdentifier(key)] = newValue
        }
    }

    /// These values with `change` applied.
    public func with(_ change: (inout DependencyValues) -> Void) -> DependencyValues {
        var values = self
        change(&values)
        return values
    }
}
