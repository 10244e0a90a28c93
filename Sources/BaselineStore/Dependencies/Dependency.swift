/// Reads a dependency from the values the code runs with
/// (``DependencyValues/current``): in a reducer, its store's.
///
/// ```swift
/// struct Counter: Reducer {
///     @Dependency(\.factClient) var factClient
///
///     func reduce(into state: inout State, action: Action) -> Effect<Action> {
///         switch action {
///         case .factButtonTapped:
///             return .run { [count = state.count] send in
///                 await send(.factResponse(try await factClient.fetch(count)))
///             }
///         …
/// ```
///
/// The value is looked up on each read, not when the reducer is made, so one
/// reducer value serves stores with different overrides. Reading it inside
/// an effect gives the store's value too: effects start with it bound.
///
/// Passing clients to a reducer's initialiser keeps working, and stays the
/// plainest choice for a small feature; a dependency pays off when many
/// features share a client, or when a test should prove which clients a
/// feature touches.
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
    private let keyPath: KeyPath<DependencyValues, Value> & Sendable

    /// Reads the dependency at `keyPath`.
    public init(_ keyPath: KeyPath<DependencyValues, Value> & Sendable) {
        self.keyPath = keyPath
    }

    /// The dependency's value now.
    public var wrappedValue: Value {
        DependencyValues.current[keyPath: keyPath]
    }
}
