/// Declares a dependency: the value apps run with, and the value tests start from.
///
/// A dependency is usually a struct of closures, so that a test replaces one
/// endpoint without a protocol and a mock type per client:
///
/// ```swift
/// struct FactClient: Sendable {
///     var fetch: @Sendable (Int) async throws -> String
/// }
///
/// extension FactClient: DependencyKey {
///     static let liveValue = FactClient { number in try await api.fact(about: number) }
///     // Fails the test that calls it without overriding it first.
///     static let testValue = FactClient(fetch: unimplemented("FactClient.fetch"))
/// }
///
/// extension DependencyValues {
///     var factClient: FactClient {
///         get { self[FactClient.self] }
///         set { self[FactClient.self] = newValue }
///     }
/// }
/// ```
///
/// A reducer then reads it with ``Dependency``, a store overrides it with
/// `withDependencies:`, and a `TestStore` starts from ``testValue``.
///
/// In an Xcode 26 app target (default isolation `MainActor`), write both
/// extensions `nonisolated extension`: dependencies are read inside effects,
/// off the main actor, and a key path to a main-actor property is not
/// `Sendable`, so `@Dependency(\.factClient)` would not compile.
public protocol DependencyKey {
    /// The dependency's type.
    associatedtype Value: Sendable

    /// What a ``Store`` uses unless told otherwise: the real thing.
    ///
    /// Declare it with `static let`: a computed `static var` makes a new
    /// value on every read, and a client that keeps state (a cache) would
    /// lose it.
    static var liveValue: Value { get }

    /// What a test store uses unless the test overrides it. Make it fail
    /// when called (``unimplemented(_:fileID:filePath:line:)``), so that an
    /// exhaustive test also proves which dependencies a feature touches.
    static var testValue: Value { get }
}
