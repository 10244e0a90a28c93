public import Observation

/// A query's current result, kept current after every commit that changes
/// it: the list property of an `@Observable` model, or a view's.
///
/// ```swift
/// @Observable @MainActor
/// final class TodosModel {
///     let todos: LiveQuery<[Todo]>
///
///     init(database: SQLiteDatabase) {
///         todos = LiveQuery(database, .all(Todo.order(Column("date").desc)))
///     }
/// }
///
/// List(model.todos.value) { Text($0.text) }          // current after every commit
/// if let error = model.todos.loadError { ErrorBanner(error) }
/// model.todos.load(.all(Todo.matching(search)))      // a new query: no stale result after it
/// ```
///
/// It is `Observable`: SwiftUI and `withObservationTracking` see ``value``,
/// ``isLoading`` and ``loadError`` change. A store's state holds a value
/// instead (BaselineStore's `Fetched`, with `fetching` and
/// ``SQLiteDatabase/live(_:)``), so that its tests see every result.
///
/// ## Lifetime, answered
///
/// - **When it starts.** When it is made: the first result follows at once
///   (``isLoading`` until then), read off the main actor.
/// - **What keeps it alive.** Its owner, holding it. The observation holds it
///   weakly, so it never keeps itself alive.
/// - **When it stops.** When it is released, when its query fails (``loadError``;
///   the value stays), when ``cancel()`` is called, or when the database
///   closes (``loadError`` is then ``SQLiteDatabaseError/closed``). A model
///   released with its live queries leaves no observation running, as
///   `SQLiteDatabase/waitUntilObservationsEnd()` shows.
/// - **Where results land.** On the main actor, where it is read.
@MainActor
public final class LiveQuery<Value: Sendable>: Observable {
    /// The query's latest result; the query's placeholder until the first.
    /// Reading it touches no database and allocates nothing.
    public var value: Value {
        registrar.access(self, keyPath: paths.value)
        return storedValue
    }

    /// Whether a result of the current query is on its way: from the start,
    /// or the last ``load(_:)``, until its first result or its failure.
    public var isLoading: Bool {
        registrar.access(self, keyPath: paths.isLoading)
        return storedIsLoading
    }

    /// Why the query stopped, when it failed: a ``SQLiteDatabaseError``, or
    /// what the query's own closure threw. ``value`` keeps the last good result.
    public var loadError: (any Error)? {
        registrar.access(self, keyPath: paths.loadError)
        return storedLoadError
    }

    /// The query followed now.
    public private(set) var query: DatabaseQuery<Value>

    /// The database it reads.
    public let database: SQLiteDatabase

    private var storedValue: Value
    private var storedIsLoading = true
    private var storedLoadError: (any Error)?
    private let registrar = ObservationRegistrar()
    /// Made once: a generic class's key path literal is instantiated on every use.
    private let paths = Paths()
    private var following: Task<Void, Never>?
    /// Which query the running task follows; results of older ones are dropped.
    private var generation: UInt64 = 0

    /// Follows `query` in `database`, starting now.
    public init(_ database: SQLiteDatabase, _ query: DatabaseQuery<Value>) {
        self.database = database
        self.query = query
        self.storedValue = query.placeholder
        follow()
    }

    deinit {
        following?.cancel()
    }

    /// Follows `query` instead: ``isLoading`` until its first result, the
    /// last value shown meanwhile. No result of the query it replaces
    /// arrives after this call.
    public func load(_ query: DatabaseQuery<Value>) {
        self.query = query
        follow()
    }

    /// Follows the current query again: after a failure, say.
    public func reload() {
        follow()
    }

    /// Stops following; the value stays as it is.
    public func cancel() {
        generation &+= 1
        following?.cancel()
        following = nil
        set(\.storedIsLoading, false, at: paths.isLoading)
    }

    private func follow() {
        generation &+= 1
        following?.cancel()
        let generation = self.generation
        let results = database.live(query)
        set(\.storedIsLoading, true, at: paths.isLoading)
        following = Task { [weak self] in
            do {
                for try await result in results {
                    // Cancelled tasks still run to here: the generation says whose result it is.
                    guard let self, self.generation == generation else { return }
                    self.set(\.storedValue, result, at: self.paths.value)
                    if self.storedIsLoading { self.set(\.storedIsLoading, false, at: self.paths.isLoading) }
                    if self.storedLoadError != nil { self.set(\.storedLoadError, nil, at: self.paths.loadError) }
                }
            } catch {
                guard let self, self.generation == generation, !(error is CancellationError) else { return }
                self.set(\.storedLoadError, error, at: self.paths.loadError)
                self.set(\.storedIsLoading, false, at: self.paths.isLoading)
            }
        }
    }

    private func set<Member>(
        _ storage: ReferenceWritableKeyPath<LiveQuery, Member>,
        _ newValue: Member,
        at observed: KeyPath<LiveQuery, Member>
    ) {
        registrar.withMutation(of: self, keyPath: observed) { self[keyPath: storage] = newValue }
    }

    @MainActor
    private struct Paths {
        let value = \LiveQuery.value
        let isLoading = \LiveQuery.isLoading
        let loadError = \LiveQuery.loadError
    }
}
