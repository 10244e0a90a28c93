import BaselineStore
import Foundation

/// The catalog: a random list of space photos, fetched concurrently,
/// replaced as a whole. A feature: the Photos tab holds it
/// (``PhotoBrowser``), and a store of its own runs it alone.
///
/// ```swift
/// List(store.items) { PhotoView(photo: $0) }
///     .task { await store.send(.updateItems).finish() }        // cancelled when the view goes
///     .refreshable { await store.send(.updateItems).finish() } // returns when the new list is in
/// ```
///
/// - The photos are fetched in a task group, at most
///   ``maximumConcurrentFetches`` at a time, off the main actor; the list keeps
///   the order of the days the source gave, whatever order the answers arrive in.
/// - A photo that fails to load is left out; ``State/failedCount`` says how many were.
/// - While a load runs, ``State/progress`` says how far it is (n of m,
///   failures counted), for a "Loading 5 of 12…" line.
/// - ``Action/cancel`` stops the load in flight: its outstanding requests
///   are cancelled and the list stays as it was.
/// - A new ``Action/updateItems`` while one is running supersedes it: the
///   earlier one is cancelled, and only the newest result is shown: two
///   loads never interleave.
/// - When the server cannot be reached and the source answers with the
///   list it kept from the last time, ``State/isOffline`` says so.
public struct PhotoCatalog: Reducer {
    /// What the catalog shows.
    public struct State: Equatable, Sendable {
        /// The photos of the last completed load, in the source's order.
        public var items: [SpacePhoto]
        /// How many photos of the last completed load failed and were left out.
        public var failedCount: Int
        /// Whether a load is running.
        public var isLoading: Bool
        /// How far the running load is; `nil` while none runs, and until the
        /// load knows how many photos it will fetch.
        public var progress: LoadProgress?
        /// Why the last load found no photos at all (the list of days could
        /// not be fetched); `nil` after a load that worked.
        public var errorMessage: String?
        /// Whether the last completed load's list is the one kept from an
        /// earlier answer, because the server could not be reached.
        public var isOffline: Bool

        /// An empty catalog; nothing loads until ``Action/updateItems``.
        public init(
            items: [SpacePhoto] = [],
            failedCount: Int = 0,
            isLoading: Bool = false,
            progress: LoadProgress? = nil,
            errorMessage: String? = nil,
            isOffline: Bool = false
        ) {
            self.items = items
            self.failedCount = failedCount
            self.isLoading = isLoading
            self.progress = progress
            self.errorMessage = errorMessage
            self.isOffline = isOffline
        }
    }

    /// What the catalog can do, and what its loads answer.
    @CasePathable
    public enum Action: Equatable, Sendable {
        /// Loads a new random list, superseding a load in flight.
        case updateItems
        /// Stops the load in flight; the list stays as it was.
        case cancel
        /// The running load's progress.
        case progressed(LoadProgress)
        /// The load ended with these photos, `failures` of them left out;
        /// `offline` when the list was kept from an earlier answer.
        case loaded([SpacePhoto], failures: Int, offline: Bool)
        /// The list of days could not be fetched; the message says why.
        case loadFailed(String)
    }

    /// How many photos a load asks for.
    public let count: Int
    /// How many photo requests run at once.
    public let maximumConcurrentFetches: Int
    let source: PhotoSource

    enum CancelID { case load }

    /// A catalog of `source`'s photos; `count` is clamped to at least 0 and
    /// `maximumConcurrentFetches` to at least 1.
    public init(source: PhotoSource, count: Int = 12, maximumConcurrentFetches: Int = 4) {
        self.source = source
        self.count = max(0, count)
        self.maximumConcurrentFetches = max(1, maximumConcurrentFetches)
    }

    /// Starts, supersedes or stops a load, and shows what it answers.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .updateItems:
            state.isLoading = true
            state.progress = nil
            return .run(name: "load the catalog") { [source, count, maximumConcurrentFetches] send in
                let loaded = try await Self.load(
                    from: source,
                    count: count,
                    maximumConcurrentFetches: maximumConcurrentFetches
                ) { progress in
                    // A superseded load's progress is dropped: its sends do nothing once cancelled.
                    await send(.progressed(progress))
                }
                await send(.loaded(loaded.photos, failures: loaded.failures, offline: loaded.isOffline))
            } catch: { error, send in
                await send(.loadFailed(ErrorMessage.line("The catalog could not be loaded", error)))
            }
            .cancellable(id: CancelID.load, cancelInFlight: true)

        case .cancel:
            state.isLoading = false
            state.progress = nil
            return .cancel(id: CancelID.load)

        case let .progressed(progress):
            state.progress = progress
            return .none

        case let .loaded(photos, failures, offline):
            state.isLoading = false
            state.progress = nil
            state.items = photos
            state.failedCount = failures
            state.errorMessage = nil
            state.isOffline = offline
            return .none

        case let .loadFailed(message):
            state.isLoading = false
            state.progress = nil
            state.errorMessage = message
            return .none
        }
    }

    struct Loaded: Sendable {
        var photos: [SpacePhoto]
        var failures: Int
        var isOffline: Bool
    }

    /// Fetches the photos of `count` random days, `maximumConcurrentFetches`
    /// at a time; runs off the main actor.
    static func load(
        from source: PhotoSource,
        count: Int,
        maximumConcurrentFetches: Int,
        progress report: @Sendable (LoadProgress) async -> Void = { _ in }
    ) async throws -> Loaded {
        let days = try await source.randomDates(count)
        let dates = days.dates
        var progress = LoadProgress(completed: 0, total: dates.count, failed: 0)
        await report(progress)
        var slots = [SpacePhoto?](repeating: nil, count: dates.count)
        var failures = 0
        await withTaskGroup(of: (Int, SpacePhoto?).self) { group in
            var next = 0
            func startNext() {
                let index = next
                let date = dates[index]
                next += 1
                group.addTask {
                    // A failed photo is skipped, not fatal: the list shows the rest.
                    (index, try? await source.photo(date))
                }
            }
            while next < min(maximumConcurrentFetches, dates.count) { startNext() }
            for await (index, photo) in group {
                if let photo { slots[index] = photo } else { failures += 1 }
                if next < dates.count, !Task.isCancelled { startNext() }
                progress.completed += 1
                progress.failed = failures
                await report(progress)
            }
        }
        // Answers that failed because we were cancelled are not failures.
        try Task.checkCancellation()
        return Loaded(photos: slots.compactMap { $0 }, failures: failures, isOffline: days.isServedWhileOffline)
    }
}

/// How far a load has come: `completed` of `total` answers are in, `failed`
/// of them failures.
public struct LoadProgress: Equatable, Sendable {
    /// How many answers are in, failures included.
    public var completed: Int
    /// How many photos the load fetches: the number of days the source gave.
    public var total: Int
    /// How many of the ``completed`` answers were failures.
    public var failed: Int

    /// Progress with the given counts (`failed` is at most `completed`, which is at most `total`).
    public init(completed: Int, total: Int, failed: Int) {
        self.completed = completed
        self.total = total
        self.failed = failed
    }
}
