import BaselineConcurrency
import Foundation
public import GRDB

extension SQLiteDatabase {
    /// The results of `fetch`, now and after every commit that changes them.
    ///
    /// The first element is the current result. Later ones come after commits
    /// made through this database by any task or actor; commits that do not
    /// touch the tables `fetch` reads produce nothing. Elements are delivered
    /// wherever you iterate (on your actor). When results change faster than
    /// you read them, you get the newest: a list screen wants the latest
    /// state, not every intermediate one.
    ///
    /// The sequence finishes when the database is closed or released, and
    /// throws a ``SQLiteDatabaseError`` if a fetch fails. Stop iterating to stop
    /// observing.
    ///
    /// ```swift
    /// for try await todos in database.observe({ db in try Todo.order(Column("date")).fetchAll(db) }) {
    ///     self.todos = todos
    /// }
    /// ```
    ///
    /// Writes made by another process to the same file are not seen: SQLite
    /// tells a connection only about its own process's commits.
    public func observe<Value: Sendable>(
        _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        observe(ValueObservation.tracking(fetch))
    }

    /// The results of `fetch`, now and after every commit that changes them,
    /// without consecutive duplicates (a commit to a table `fetch` reads that
    /// leaves its result as it was produces nothing).
    ///
    /// See ``observe(_:)-7tfx5`` for delivery and lifetime.
    public func observe<Value: Sendable & Equatable>(
        _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        observe(ValueObservation.tracking(fetch).removeDuplicates())
    }

    /// The results of `query`, now and after every commit that changes
    /// them; a live query as an `AsyncSequence`, for a store's `fetching`
    /// or a loop of your own.
    ///
    /// ```swift
    /// .fetching(\.todos, action: \.todos) { database.live(.all(Todo.order(Column("date")))) }
    /// ```
    ///
    /// Delivery is as ``observe(_:)-7tfx5``'s (the newest result, on your
    /// actor; consecutive equal results once, when the query can compare
    /// them), with one difference: closing or releasing the database ends the
    /// sequence by throwing ``SQLiteDatabaseError/closed``, so that a screen
    /// following a query shows that it stopped rather than a list that has
    /// silently gone stale.
    public func live<Value>(_ query: DatabaseQuery<Value>) -> AsyncThrowingStream<Value, any Error> {
        let observation = ValueObservation.tracking(query.fetch)
        if let isDuplicate = query.isDuplicate {
            return observe(observation.removeDuplicates(by: isDuplicate), closing: SQLiteDatabaseError.closed)
        }
        return observe(observation, closing: SQLiteDatabaseError.closed)
    }

    /// Streams `observation`'s values; closing the database finishes the
    /// stream, by throwing `closing` when there is one.
    private func observe<Reducer: ValueReducer>(
        _ observation: ValueObservation<Reducer>,
        closing: SQLiteDatabaseError? = nil
    ) -> AsyncThrowingStream<Reducer.Value, any Error> where Reducer.Value: Sendable {
        typealias Value = Reducer.Value
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self,
            throwing: (any Error).self,
            bufferingPolicy: .bufferingNewest(1)
        )
        let registry = observations
        // Register, and install the termination handler, before the observation
        // starts: an error on its very first fetch must find both in place.
        guard let id = registry.reserve(finish: { continuation.finish(throwing: closing) }) else {
            continuation.finish(throwing: closing)
            return stream
        }
        continuation.onTermination = { _ in registry.remove(id) }
        let path = self.path
        let cancellable = observation.start(
            in: writer,
            scheduling: .async(onQueue: registry.deliveryQueue),
            onError: { error in
                // A close racing with the start is an end, not a failure.
                if registry.isClosed {
                    continuation.finish(throwing: closing)
                } else {
                    continuation.finish(throwing: SQLiteDatabaseError.wrap(error, path: path))
                }
            },
            onChange: { value in continuation.yield(value) }
        )
        if !registry.attach(cancellable, to: id) {
            // Ended (or closed) while starting: stop it now.
            cancellable.cancel()
        }
        return stream
    }

    /// How many observations are running (for diagnostics and tests).
    public var activeObservationCount: Int { observations.count }

    /// Returns once no observation is running: every ``observe(_:)-7tfx5``
    /// sequence has ended, been abandoned by its consumer, or been ended by
    /// closing the database. A consumer's task that was cancelled ends its
    /// observation a moment after, so a leak check waits here rather than
    /// reading ``activeObservationCount`` at once.
    ///
    /// ```swift
    /// model = nil   // its observing task is cancelled
    /// try await database.waitUntilObservationsEnd()
    /// ```
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled
    ///   first, so a time limit fails the check instead of hanging it.
    public func waitUntilObservationsEnd() async throws {
        try await observations.waitUntilEmpty()
    }
}

/// The running observations of one database, so that closing it ends them.
final class ObservationRegistry: Sendable {
    private struct Entry: Sendable {
        var finish: @Sendable () -> Void
        var cancel: (@Sendable () -> Void)?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var isClosed = false
    }

    private let state = LockedValue(State())
    private let emptyWaiters = IdleWaiters()
    /// Where GRDB hands fresh values over; the stream then delivers them to
    /// the consumer's own executor.
    let deliveryQueue = DispatchQueue(label: "baseline.persistence.observation")

    var isClosed: Bool { state.withLock { $0.isClosed } }
    var count: Int { state.withLock { $0.entries.count } }

    /// Registers an observation about to start; `nil` when the database is closed.
    func reserve(finish: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state in
            guard !state.isClosed else { return nil }
            state.nextID += 1
            state.entries[state.nextID] = Entry(finish: finish, cancel: nil)
            return state.nextID
        }
    }

    /// Gives a reserved observation its cancellable; `false` when the entry
    /// has gone meanwhile (the stream ended, or the database closed).
    func attach(_ cancellable: AnyDatabaseCancellable, to id: UInt64) -> Bool {
        state.withLock { state in
            guard state.entries[id] != nil else { return false }
            state.entries[id]?.cancel = { cancellable.cancel() }
            return true
        }
    }

    func remove(_ id: UInt64) {
        let (entry, empty) = state.withLock { state in
            (state.entries.removeValue(forKey: id), state.entries.isEmpty)
        }
        entry?.cancel?()
        if empty { emptyWaiters.resumeAll() }
    }

    func waitUntilEmpty() async throws {
        try await emptyWaiters.wait { count == 0 }
    }

    /// Closes the registry and ends every observation; `false` if it was closed already.
    @discardableResult
    func endAll() -> Bool {
        let entries = state.withLock { state -> [Entry]? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            defer { state.entries = [:] }
            return Array(state.entries.values)
        }
        guard let entries else { return false }
        for entry in entries {
            entry.cancel?()
            entry.finish()
        }
        emptyWaiters.resumeAll()
        return true
    }
}
