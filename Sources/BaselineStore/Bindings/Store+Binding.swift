extension Store where Action: BindableAction, Action.State == State {
    /// A field of the state as a value a control can read and write: reading
    /// gives the state's value (tracked, like any read of the store), writing
    /// sends `.binding(.set(keyPath, value))`.
    ///
    /// ```swift
    /// TextField("ID", text: Binding(store.binding(\.id)))   // SwiftUI
    /// idField.text = store.binding(\.id)                     // any UI
    /// ```
    public func binding<Value: Equatable & Sendable>(_ keyPath: WritableKeyPath<State, Value>) -> StoreBinding<Value> {
        StoreBinding(
            // Strong: a SwiftUI binding may outlive a scoped store's view a
            // moment (a sheet animating out); the store holds no binding back.
            get: { self.state[keyPath: keyPath] },
            set: { value in self.send(.binding(.set(keyPath, value))) }
        )
    }
}

/// A field of a store's state, read from the store and written by sending a
/// ``BindingAction``: what ``Store/binding(_:)`` gives a control.
///
/// On Apple platforms, `SwiftUI.Binding(_:)` turns it into a SwiftUI binding.
/// It keeps its store alive.
@MainActor
public struct StoreBinding<Value> {
    private let get: @MainActor () -> Value
    private let set: @MainActor (Value) -> Void

    /// A binding that reads with `get` and writes with `set`.
    public init(get: @escaping @MainActor () -> Value, set: @escaping @MainActor (Value) -> Void) {
        self.get = get
        self.set = set
    }

    /// The field's current value; setting it sends the binding action.
    public var value: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }
}

#if canImport(SwiftUI)
import SwiftUI

extension Binding {
    /// A SwiftUI binding to a store's field (``Store/binding(_:)``).
    @MainActor
    public init(_ binding: StoreBinding<Value>) {
        self.init(get: { binding.value }, set: { binding.value = $0 })
    }
}
#endif
