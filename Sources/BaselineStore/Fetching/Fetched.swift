/// A value that follows a source outside the store (a database query, a
/// file, a feed) as a feature's state: its latest value, whether a new one
/// is on its way, and the error that stopped it.
///
/// It is plain state: results arrive as actions (``FetchAction/loaded(_:)``),
/// so a `TestStore` sees each one and an exhaustive test must assert it.
///
/// ```swift
/// struct State: Equatable {
///     var search = ""
///     var todos = Fetched<[Todo]>([])
/// }
///
/// @CasePathable
/// enum Action {
///     case todos(FetchAction<[Todo]>)
///     // …
/// }
///
/// var body: some Reducer<State, Action> {
///     Reduce { state, action in … }
///         .fetching(\.todos, action: \.todos, query: \.search) { search in
///             database.live(Todo.matching(search))
///         }
/// }
/// ```
///
/// See ``Reducer/fetching(_:action:query:values:)`` for when it starts and stops.
public struct Fetched<Value> {
    /// The latest value; the initial one until the first arrives. A failure
    /// keeps the last good value.
    public var value: Value
    /// Whether the source is followed: from ``FetchAction/start`` until
    /// ``FetchAction/stop``, a failure, or the source's end.
    public var isFollowing: Bool
    /// Whether a value for the current query is on its way: after a start,
    /// and after the query changed, until its first value (or a failure).
    public var isLoading: Bool
    /// Why following stopped, when it failed; cleared by the next value.
    public var loadError: FetchFailure?
    /// The running source: which one (its cancellation id, distinct for each
    /// start, so that features of one type in a stack or a list stop only
    /// their own) and the query it was started for. Bookkeeping for
    /// ``Reducer/fetching(_:action:query:values:)``, left out of `==`.
    var source: (id: UInt64, query: any Sendable)?

    /// A value not followed yet, showing `initial` until the first result.
    public init(_ initial: Value, isFollowing: Bool = false, isLoading: Bool = false, loadError: FetchFailure? = nil) {
        self.value = initial
        self.isFollowing = isFollowing
        self.isLoading = isLoading
        self.loadError = loadError
    }
}

extension Fetched: Equatable where Value: Equatable {
    /// Equal when they show the same: the query being followed is bookkeeping.
    public static func == (lhs: Fetched, rhs: Fetched) -> Bool {
        lhs.value == rhs.value && lhs.isFollowing == rhs.isFollowing && lhs.isLoading == rhs.isLoading
            && lhs.loadError == rhs.loadError
    }
}
extension Fetched: Sendable where Value: Sendable {}

/// What happens to a ``Fetched`` value: the actions of the case that
/// ``Reducer/fetching(_:action:query:values:)`` follows.
public enum FetchAction<Value> {
    /// Starts following the source; nothing more while its query is followed.
    case start
    /// Stops following; the value stays.
    case stop
    /// The source's value now.
    case loaded(Value)
    /// The source failed; following has stopped, the value stays.
    case failed(FetchFailure)
    /// The source ended without a failure; following has stopped.
    case finished
}

extension FetchAction: Equatable where Value: Equatable {}
extension FetchAction: Sendable where Value: Sendable {}

/// The error that stopped a ``Fetched`` value, as equatable state.
///
/// Two failures are equal when their errors are: by the error type's own
/// `==` where it has one, otherwise when they are of one type and describe
/// themselves alike.
public struct FetchFailure: Error, Equatable, CustomStringConvertible {
    /// The source's error, as thrown.
    public let error: any Error

    /// A failure for `error`.
    public init(_ error: any Error) {
        self.error = error
    }

    /// Whether two failures are of the same error (see the type's discussion).
    public static func == (lhs: FetchFailure, rhs: FetchFailure) -> Bool {
        if let left = equatable(lhs.error) {
            return left.isEqual(to: rhs.error)
        }
        return type(of: lhs.error) == type(of: rhs.error)
            && String(reflecting: lhs.error) == String(reflecting: rhs.error)
    }

    /// The error's own description.
    public var description: String { String(describing: error) }
}

/// `value` as an `Equatable`, when its type is one.
private func equatable(_ value: Any) -> (any Equatable)? {
    value as? any Equatable
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self) == self
    }
}
