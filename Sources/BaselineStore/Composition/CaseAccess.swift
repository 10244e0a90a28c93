/// A case of an `@CasePathable` enum, by key path: `\.login` for
/// `case login(PresentationAction<LoginFeature.Action>)`.
///
/// What ``Scope``, ``Reducer/presenting(_:action:child:)``,
/// ``Reducer/stack(_:action:child:)`` and ``Store/scope(state:action:)-(KeyPath<State,ChildState>,_)``
/// take to reach a child's actions inside the parent's. Written as a key
/// path literal, it reads as TCA's case key paths do:
///
/// ```swift
/// @CasePathable
/// enum Action {
///     case counter(Counter.Action)
///     case login(PresentationAction<LoginFeature.Action>)
/// }
///
/// Scope(state: \.counter, action: \.counter) { Counter() }
/// ```
///
/// It is a key path to the case's member of the enum's `AllCasePaths` (which
/// `@CasePathable` generates), not a `CaseKeyPath`: a reducer resolves it
/// once, when it is built, into the two functions the macro wrote for the
/// case, so reaching a child's action costs what a hand-written `switch`
/// costs (about 50 ns; a `CaseKeyPath` costs about 1 µs per action).
///
/// In a module whose default actor isolation is `MainActor` (new Xcode 26
/// app targets), an `@CasePathable enum Action` works as it is, its
/// conformance the main actor's: the store uses the conformance once, on the
/// main actor, when it builds the reducer, and the functions it keeps need
/// none.
public typealias ActionCase<Root: CasePathable, Value> = KeyPath<Root.AllCasePaths, AnyCasePath<Root, Value>>

/// A case of an enum, resolved once into the macro's two functions that a
/// reducer calls for every action: take the case's value out of an action,
/// and put one in. Calling them through the `AnyCasePath` itself, with no
/// closure of ours around it, keeps a send one indirect call per level.
///
/// The conformance to `CasePathable` is used once, here, where the reducer is
/// built: the functions need none, so an effect may call them off the main
/// actor even when the enum's conformance is the main actor's.
struct CaseAccess<Root, Value>: Sendable {
    let casePath: AnyCasePath<Root, Value>

    init(_ keyPath: ActionCase<Root, Value>) where Root: CasePathable {
        casePath = Root.allCasePaths[keyPath: keyPath]
    }

    func extract(_ root: Root) -> Value? {
        casePath.extract(from: root)
    }

    func embed(_ value: Value) -> Root {
        casePath.embed(value)
    }
}
