/// A value that every feature holding its key sees the same, and that may
/// outlive the process: the last tab, a draft, a preference.
///
/// It is plain state. A feature changes ``value`` as it changes any state,
/// and ``Reducer/sharing(_:action:_:)`` saves the change and passes it to the
/// other holders; what arrives from elsewhere (the stored value at start,
/// another holder's change, another process's write) arrives as an action,
/// ``SharedAction/loaded(_:)``. So an exhaustive `TestStore` asserts a shared
/// value like any other state: a test that changes it without saying so
/// fails, and so does one that does not receive what another holder wrote.
///
/// ```swift
/// struct State: Equatable {
///     var tab = Shared(AppTab.photos)
/// }
///
/// @CasePathable
/// enum Action {
///     case tab(SharedAction<AppTab>)
///     case tabTapped(AppTab)
/// }
///
/// var body: some Reducer<State, Action> {
///     Reduce { state, action in
///         if case let .tabTapped(tab) = action { state.tab.value = tab }
///         return .none
///     }
///     .sharing(\.tab, action: \.tab, .file(support.appending(path: "tab.json")))
/// }
/// ```
public struct Shared<Value> {
    /// The value: the initial one until the stored value is loaded, and the
    /// initial one again when that fails (see ``loadError``).
    public var value: Value
    /// Whether the key is followed: from ``SharedAction/start`` until
    /// ``SharedAction/stop``.
    public var isFollowing: Bool
    /// Whether the stored value is on its way: from ``SharedAction/start``
    /// until it is loaded (or found missing, or failed).
    public var isLoading: Bool
    /// Why the stored value could not be read (a file that does not decode,
    /// say); cleared when a value is loaded.
    public var loadError: SharedFailure?
    /// Why the last change could not be saved; cleared by the next save
    /// that succeeds. The value stays as changed, in memory.
    public var saveError: SharedFailure?
    /// The holder this state is while it follows the key: its changes are
    /// not sent back to it, and its effects are its own. Bookkeeping for
    /// ``Reducer/sharing(_:action:_:)``, left out of `==`.
    var holder: UInt64?
    /// The value as the key last had it here: loaded, or written by this
    /// holder. A value that differs from it after an action is a change to
    /// write, whichever reducer made it. Bookkeeping, left out of `==`.
    var synced: Value

    /// A value showing `initial` until the stored one is loaded.
    public init(
        _ initial: Value,
        isFollowing: Bool = false,
        isLoading: Bool = false,
        loadError: SharedFailure? = nil,
        saveError: SharedFailure? = nil
    ) {
        self.value = initial
        self.synced = initial
        self.isFollowing = isFollowing
        self.isLoading = isLoading
        self.loadError = loadError
        self.saveError = saveError
    }
}

extension Shared: Equatable where Value: Equatable {
    /// Equal when they show the same: which holder this is, is bookkeeping.
    public static func == (lhs: Shared, rhs: Shared) -> Bool {
        lhs.value == rhs.value && lhs.isLoading == rhs.isLoading && lhs.loadError == rhs.loadError
            && lhs.saveError == rhs.saveError && lhs.isFollowing == rhs.isFollowing
    }
}
extension Shared: Sendable where Value: Sendable {}

/// What happens to a ``Shared`` value: the actions of the case that
/// ``Reducer/sharing(_:action:_:)`` keeps.
public enum SharedAction<Value> {
    /// Loads the stored value and follows changes from elsewhere, until
    /// ``stop`` or the store's release. Nothing more while followed.
    case start
    /// Stops following; the value stays, and changes are still saved.
    case stop
    /// The stored value, or another holder's or process's change; `nil` when
    /// nothing is stored yet (the state keeps its value).
    case loaded(Value?)
    /// The stored value could not be read.
    case loadFailed(SharedFailure)
    /// A change could not be saved.
    case saveFailed(SharedFailure)
    /// A change was saved after an earlier save had failed.
    case saved
}

extension SharedAction: Equatable where Value: Equatable {}
extension SharedAction: Sendable where Value: Sendable {}

/// The error that kept a ``Shared`` value from loading or saving, as
/// equatable state (the same wrapper as a fetched value's).
public typealias SharedFailure = FetchFailure
