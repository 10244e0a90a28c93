import Foundation
import Observation

/// The catalog screen's model (seed 004's `Photos`): a random list of space
/// photos, fetched concurrently, replaced as a whole.
///
/// ```swift
/// List(catalog.items) { PhotoView(photo: $0) }
///     .task { await catalog.updateItems() }        // cancelled when the view goes
///     .refreshable { await catalog.updateItems() } // returns when the new list is in
/// ```
///
/// - The photos are fetched in a task group, at most
///   ``maximumConcurrentFetches`` at a time, off the main actor; the list keeps
///   the order of the days the source gave, whatever order the answers arrive in.
/// - A photo that fails to load is left out; ``failedCount`` says how many were.
/// - While a load runs, ``progress`` says how far it is (n of m, failures
///   counted), for a "Loading 5 of 12…" line.
/// - Loading runs on behalf of the caller's task: cancel that task (the view
///   went away) and the outstanding requests are cancelled, the list stays as it was.
/// - A new ``updateItems()`` while one is running supersedes it: the earlier
///   one is cancelled (its call returns as soon as its requests have stopped)
///   and only the newest result is shown: two loads never interleave.
@MainActor
@Observable
public final class PhotoCatalog {
    /// The photos of the last completed load, in the source's order.
    public private(set) var items: [SpacePhoto] = []
    /// How many photos of the last completed load failed and were left out.
    public private(set) var failedCount = 0
    /// Whether a load is running.
    public private(set) var isLoading = false
    /// How far the running load is; `nil` while none runs, and until the
    /// load knows how many photos it will fetch.
    public private(set) var progress: LoadProgress?
    /// Why the last load found no photos at all (the list of days could not
    /// be fetched); `nil` after a load that worked.
    public private(set) var errorMessage: String?

    /// How many photos a load asks for.
    public let count: Int
    /// How many photo requests run at once.
    public let maximumConcurrentFetches: Int

    @ObservationIgnored private let source: PhotoSource
    @ObservationIgnored private var currentLoad: (id: UInt64, task: Task<Loaded, any Error>)?
    @ObservationIgnored private var nextLoadID: UInt64 = 0

    /// An empty catalog; `count` is clamped to at least 0 and
    /// `maximumConcurrentFetches` to at least 1. Nothing loads until ``updateItems()``.
    public init(source: PhotoSource, count: Int = 12, maximumConcurrentFetches: Int = 4) {
        self.source = source
        self.count = max(0, count)
        self.maximumConcurrentFetches = max(1, maximumConcurrentFetches)
    }

    /// Replaces ``items`` with a new random list; returns once it is shown,
    /// or, when this load is cancelled or superseded, once its requests have stopped.
    public func updateItems() async {
        currentLoad?.task.cancel()
        nextLoadID += 1
        let id = nextLoadID
        let (source, count, width) = (source, count, maximumConcurrentFetches)
        // Progress of a superseded load is dropped: only the newest shows.
        let report: @Sendable (LoadProgress) async -> Void = { [weak self] progress in
            await self?.show(progress, ofLoad: id)
        }
        // An unstructured task so a later call can cancel this load; it is
        // still bound to our caller through the cancellation handler below.
        let task = Task {
            try await Self.load(from: source, count: count, maximumConcurrentFetches: width, progress: report)
        }
        currentLoad = (id, task)
        isLoading = true
        progress = nil
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        // Superseded: the newer load owns the state now.
        guard currentLoad?.id == id else { return }
        currentLoad = nil
        isLoading = false
        progress = nil
        switch result {
        case let .success(loaded):
            items = loaded.photos
            failedCount = loaded.failures
            errorMessage = nil
        case .failure(is CancellationError):
            break
        case let .failure(error):
            errorMessage = ErrorMessage.line("The catalog could not be loaded", error)
        }
    }

    private func show(_ progress: LoadProgress, ofLoad id: UInt64) {
        guard currentLoad?.id == id else { return }
        self.progress = progress
    }

    struct Loaded: Sendable {
        var photos: [SpacePhoto]
        var failures: Int
    }

    /// Fetches the photos of `count` random days, `maximumConcurrentFetches`
    /// at a time; runs off the main actor.
    nonisolated static func load(
        from source: PhotoSource,
        count: Int,
        maximumConcurrentFetches: Int,
        progress report: @Sendable (LoadProgress) async -> Void = { _ in }
    ) async throws -> Loaded {
        let dates = try await source.randomDates(count)
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
                    // A failed photo is skipped, not fatal: the seed shows the rest.
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
        return Loaded(photos: slots.compactMap { $0 }, failures: failures)
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
