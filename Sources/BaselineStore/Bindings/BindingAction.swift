// Sendable, unchecked: the key path may reach into main-actor state (an
// Xcode 26 app's `\.query`), which Swift does not call `Sendable`, although
// it cannot change and reaches only a `Sendable` value. The store applies it
// in `reduce`, on the main actor; anywhere else it can only be applied to a
// copy of a value-type state, which no other task shares.

/// An action that sets one field of a feature's state: what a bound control
/// (a text field, a toggle) sends, so that a form needs no hand-written
/// action per field.
///
/// ```swift
/// enum Action: BindableAction {
///     case binding(BindingAction<State>)
///     case logInTapped
/// }
///
/// // A test sends what the control would:
/// await store.send(.binding(.set(\.id, "ada"))) { $0.id = "ada" }
/// ```
///
/// Two binding actions are equal when they set the same field to equal
/// values, so a `TestStore` can assert them.
public struct BindingAction<Root>:
    @unchecked Sendable,  // safety: see above
    Equatable, CustomStringConvertible, CustomReflectable
{
    /// The field this action sets.
    public let keyPath: PartialKeyPath<Root>
    /// The value it sets, for checking what was set (`action.value as? String`).
    public let value: any Sendable
    private let update: (inout Root) -> Void
    private let sameValue: (any Sendable) -> Bool

    /// Sets the field at `keyPath` to `value`.
    ///
    /// The key path need not be `Sendable`: in a module whose default
    /// isolation is `MainActor` (an Xcode 26 app target), `\.query` reaches
    /// main-actor state and Swift does not consider it so.
    public static func set<Value: Equatable & Sendable>(_ keyPath: WritableKeyPath<Root, Value>, _ value: Value) -> Self
    {
        BindingAction(
            keyPath: keyPath,
            value: value,
            update: { $0[keyPath: keyPath] = value },
            sameValue: { ($0 as? Value) == value }
        )
    }

    /// Writes the value into `root`.
    public func apply(to root: inout Root) {
        update(&root)
    }

    /// Whether this action sets the field at `keyPath`: for a reducer that
    /// reacts to one field (`case let .binding(binding) where binding.sets(\.query):`).
    public func sets<Value>(_ keyPath: KeyPath<Root, Value>) -> Bool {
        (self.keyPath as AnyKeyPath) == (keyPath as AnyKeyPath)
    }

    /// Same field, equal value.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.keyPath as AnyKeyPath) == (rhs.keyPath as AnyKeyPath) && lhs.sameValue(rhs.value)
    }

    /// `set \Root.field to value`.
    public var description: String {
        "set \(keyPath) to \(String(reflecting: value))"
    }

    /// The field and the value, as a test failure's dump shows them (without the closures).
    public var customMirror: Mirror {
        Mirror(self, children: ["keyPath": keyPath, "value": value], displayStyle: .struct)
    }
}

/// An action type with a case for ``BindingAction``s, which
/// ``BindingReducer`` applies and ``Store/binding(_:)`` sends.
///
/// ```swift
/// @CasePathable
/// enum Action: BindableAction {
///     case binding(BindingAction<State>)
///     case logInTapped
/// }
/// ```
///
/// The `binding` case is all a conformance needs: it is the
/// ``binding(_:)`` requirement.
public protocol BindableAction {
    /// The state the bindings set fields of.
    associatedtype State

    /// The action that carries `action`: the `case binding(BindingAction<State>)`.
    static func binding(_ action: BindingAction<State>) -> Self
}

/// Applies an action's ``BindingAction`` to the state; put it first in a
/// ``Reducer/body``, so the feature's own reducer sees the field already set.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     BindingReducer(action: \.binding)
///     Reduce { state, action in … }   // may react to `.binding`
/// }
/// ```
///
/// The case key path names the case that carries binding actions (see
/// ``ActionCase``).
public struct BindingReducer<State, Action: BindableAction & CasePathable>: Reducer where Action.State == State {
    @usableFromInline let apply: (inout State, Action) -> Void

    /// A reducer that applies the binding actions of the case at `action`.
    @inlinable
    public init(action: ActionCase<Action, BindingAction<State>>) {
        // Made where the feature's types are known (the initialiser is
        // inlined into its `body`), so the store's unspecialised call to
        // `reduce` reaches code specialised for them.
        let casePath = Action.allCasePaths[keyPath: action]
        apply = { state, action in casePath.extract(from: action)?.apply(to: &state) }
    }

    /// Sets the field a binding action names; other actions pass untouched.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        apply(&state, action)
        return .none
    }
}
