import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import Foundation
import GRDB
import Observation
import SpacePhotosCore

/// Live queries: how soon a commit reaches a live query's value, how soon a
/// new filter's result over 10,000 to-dos does, and what reading the value
/// costs. The three ways to follow a query run in interleaved rounds, so
/// that the machine's drift affects them alike:
///
/// - **raw**: a task iterating `SQLiteDatabase.observe`, storing each result
///   (the observation a live query is built on);
/// - **LiveQuery**: the observable object;
/// - **store**: a `Fetched` value in a store's state, each result an action.
@MainActor
enum LiveQueryBenchmarks {
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-live-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("Live queries (SQLite file, WAL) — release build")

        // Commit → value.
        var commit: [Variant: Measurement] = [:]
        for round in 0..<3 {
            for variant in Variant.allCases {
                let url = directory.appendingPathComponent("commit-\(round)-\(variant).sqlite")
                let database = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
                let samples = try await commitToValue(variant, database: database, commits: 220)
                commit[variant, default: Measurement(name: "commit → value updated (\(variant.rawValue))")]
                    .samples += samples
                try await database.close()
            }
        }
        for variant in Variant.allCases {
            print(commit[variant]!.reportWithP99(target: variant == .raw ? "" : "p50 near raw's"))
        }

        // A new filter over 10,000 to-dos → its result in the value.
        let url = directory.appendingPathComponent("filter.sqlite")
        let database = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
        try await TodoRepository(database: database).add(contentsOf: (0..<10_000).map { "to-do number \($0)" })
        var filter: [String: Measurement] = [:]
        for _ in 0..<3 {
            for variant in [Variant.raw, .liveQuery, .store] {
                for (results, samples) in try await filterToValue(variant, database: database, changes: 60) {
                    let name = "10,000 to-dos → \(results) rows (\(variant.rawValue))"
                    filter[name, default: Measurement(name: name)].samples += samples
                }
            }
        }
        for name in filter.keys.sorted() {
            print(filter[name]!.reportWithP99(target: name.contains("raw") ? "" : "p99 ≤ 16 ms"))
        }

        // Reading the value, as a view does.
        let notes = LiveQuery(database, .count(Todo.all()))
        try await waitUntil(notes) { !$0.isLoading }
        print(readCost(notes, tracked: false))
        print(readCost(notes, tracked: true))
        try await database.close()

        try allocations()
    }

    enum Variant: String, CaseIterable {
        case raw = "raw observe"
        case liveQuery = "LiveQuery"
        case store = "store Fetched"
    }

    /// A feature that only follows the to-dos matching its filter.
    struct Follow: Reducer {
        struct State: Equatable {
            var filter = ""
            var todos = Fetched<[Todo]>([])
        }

        @CasePathable
        enum Action: Equatable {
            case todos(FetchAction<[Todo]>)
            case filterChanged(String)
        }

        let database: SQLiteDatabase
        let query: @Sendable (String) -> DatabaseQuery<[Todo]>

        var body: some Reducer<State, Action> {
            Reduce { state, action in
                if case let .filterChanged(filter) = action { state.filter = filter }
                return .none
            }
            .fetching(\.todos, action: \.todos, query: \.filter) { [database, query] filter in
                database.live(query(filter))
            }
        }

        /// The to-dos whose text contains `filter`.
        @Sendable static func matching(_ filter: String) -> DatabaseQuery<[Todo]> {
            .all(Todo.filter(Column("text").like("%\(filter)%")).order(Column("id")))
        }

        /// The newest to-do: a result of one row, so that a commit's cost is the machinery's.
        @Sendable static func newest(_: String) -> DatabaseQuery<[Todo]> {
            .all(Todo.order(Column("id").desc).limit(1))
        }
    }

    /// Samples from just before each commit to the moment the variant's value
    /// holds the new result (the first 20 commits warm up).
    @MainActor
    static func commitToValue(_ variant: Variant, database: SQLiteDatabase, commits: Int) async throws -> [Duration] {
        let clock = ContinuousClock()
        let committing = LockedValue<ContinuousClock.Instant?>(nil)
        var samples: [Duration] = []
        let holder = try await Holder(variant, database: database, query: Follow.newest)
        for index in 0..<commits {
            let arrival = try await holder.next(clock: clock, until: { $0.first?.text == "observed \(index)" }) {
                try await database.write { db in
                    var todo = Todo(text: "observed \(index)", date: Date())
                    try todo.insert(db)
                    committing.withLock { $0 = clock.now }  // the last thing before COMMIT
                }
            }
            if index >= 20, let start = committing.current { samples.append(start.duration(to: arrival)) }
        }
        holder.stop()
        try await database.waitUntilObservationsEnd()
        return samples
    }

    /// Samples from a filter change to the new result in the value.
    @MainActor
    static func filterToValue(
        _ variant: Variant,
        database: SQLiteDatabase,
        changes: Int
    ) async throws -> [Int: [Duration]] {
        let clock = ContinuousClock()
        let holder = try await Holder(variant, database: database, query: Follow.matching)
        // Narrow, wide, empty and everything, in turn.
        let filters = ["number 1", "9", "nothing like it", ""]
        let expected = [1_111, 3_439, 0, 10_000]
        var samples: [Int: [Duration]] = [:]
        for index in 0..<changes {
            let which = index % filters.count
            let start = clock.now
            let arrival = try await holder.next(clock: clock, until: { $0.count == expected[which] }) {
                holder.change(to: filters[which])
            }
            if index >= 4 { samples[expected[which], default: []].append(start.duration(to: arrival)) }
        }
        holder.stop()
        try await database.waitUntilObservationsEnd()
        return samples
    }

    /// One way of following a query, with a common face for the measurements.
    @MainActor
    final class Holder {
        let variant: Variant
        let database: SQLiteDatabase
        var raw: [Todo] = []
        var rawTask: Task<Void, Never>?
        var rawChanged: (() -> Void)?
        var live: LiveQuery<[Todo]>?
        var store: Store<Follow.State, Follow.Action>?

        let query: @Sendable (String) -> DatabaseQuery<[Todo]>

        init(
            _ variant: Variant,
            database: SQLiteDatabase,
            query: @escaping @Sendable (String) -> DatabaseQuery<[Todo]>
        ) async throws {
            self.variant = variant
            self.database = database
            self.query = query
            switch variant {
            case .raw:
                startRaw(query(""))
            case .liveQuery:
                live = LiveQuery(database, query(""))
            case .store:
                store = Store(initialState: Follow.State()) { Follow(database: database, query: query) }
                store?.send(.todos(.start))
            }
            _ = try await next(clock: ContinuousClock(), until: { _ in self.isLoaded }) {}
        }

        var isLoaded: Bool {
            switch variant {
            case .raw: rawLoaded
            case .liveQuery: !live!.isLoading
            case .store: !store!.todos.isLoading
            }
        }

        var rawLoaded = false

        func startRaw(_ query: DatabaseQuery<[Todo]>) {
            rawTask?.cancel()
            let results = database.observe(query.fetch)
            rawTask = Task { @MainActor [weak self] in
                do {
                    for try await todos in results {
                        self?.raw = todos
                        self?.rawLoaded = true
                        self?.rawChanged?()
                    }
                } catch {}
            }
        }

        var current: [Todo] {
            switch variant {
            case .raw: raw
            case .liveQuery: live!.value
            case .store: store!.todos.value
            }
        }

        func change(to filter: String) {
            switch variant {
            case .raw: startRaw(query(filter))
            case .liveQuery: live?.load(query(filter))
            case .store: store?.send(.filterChanged(filter))
            }
        }

        /// Runs `act`, then waits until `condition` holds for the value; returns when it did.
        func next(
            clock: ContinuousClock,
            until condition: @escaping @MainActor ([Todo]) -> Bool,
            _ act: () async throws -> Void
        ) async throws -> ContinuousClock.Instant {
            try await act()
            if condition(current) { return clock.now }
            return await withCheckedContinuation { continuation in
                waiting = (condition, clock, continuation)
                arm()
            }
        }

        /// The wait in progress: the condition awaited, and who to tell.
        private var waiting:
            (
                condition: @MainActor ([Todo]) -> Bool, clock: ContinuousClock,
                continuation: CheckedContinuation<ContinuousClock.Instant, Never>
            )?

        private func check() {
            guard let waiting else { return }
            guard waiting.condition(current) else { return arm() }
            self.waiting = nil
            waiting.continuation.resume(returning: waiting.clock.now)
        }

        private func arm() {
            switch variant {
            case .raw:
                rawChanged = { [weak self] in
                    self?.rawChanged = nil
                    self?.check()
                }
            case .liveQuery, .store:
                withObservationTracking {
                    _ = self.current
                    _ = self.isLoaded
                } onChange: {
                    // Called as the value is about to change: look once it has.
                    Task { @MainActor [weak self] in self?.check() }
                }
            }
        }

        func stop() {
            rawTask?.cancel()
            live?.cancel()
            store?.send(.todos(.stop))
        }
    }

    /// Nanoseconds per read of a live query's value, in or out of an
    /// observation scope (a SwiftUI body is in one).
    @MainActor
    static func readCost(_ live: LiveQuery<Int>, tracked: Bool) -> String {
        let reads = 1_000_000
        let clock = ContinuousClock()
        var sum = 0
        let elapsed = clock.measure {
            if tracked {
                // One scope per 100 reads, as a body reads a few values per render.
                for _ in 0..<(reads / 100) {
                    withObservationTracking {
                        for _ in 0..<100 { sum &+= live.value }
                    } onChange: {
                    }
                }
            } else {
                for _ in 0..<reads { sum &+= live.value }
            }
        }
        precondition(sum >= 0)
        let nanoseconds =
            (Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9) / Double(reads)
        return String(
            format: "  read LiveQuery.value %@: %.1f ns per read (no database access: a stored property)",
            tracked ? "in an observation scope" : "untracked",
            nanoseconds
        )
    }

    // MARK: Allocations

    /// Allocations per update, and per read, counted by `malloc-count` in a
    /// child process for two counts and differenced (start-up cancels out).
    static func allocations() throws {
        guard let library = try HTTPAllocationBenchmarks.mallocCountLibrary() else {
            print("  (allocations: no malloc-count library; set MALLOC_COUNT_LIBRARY or MALLOC_COUNT_SOURCE)")
            return
        }
        let (low, high) = (200, 1_200)
        for variant in Variant.allCases {
            let few = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["live-alloc-probe", variant.rawValue, String(low)],
                library: library
            )
            let many = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["live-alloc-probe", variant.rawValue, String(high)],
                library: library
            )
            print(
                String(
                    format: "  allocations per commit → value (%@, the write included): %.1f",
                    variant.rawValue,
                    Double(many - few) / Double(high - low)
                )
            )
        }
        for tracked in [false, true] {
            let mode = tracked ? "tracked" : "untracked"
            let few = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["live-read-probe", mode, "1000"],
                library: library
            )
            let many = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["live-read-probe", mode, "101000"],
                library: library
            )
            print(
                String(
                    format: "  allocations per read of LiveQuery.value (%@): %.3f",
                    mode,
                    Double(many - few) / 100_000
                )
            )
        }
    }

    /// The child of ``allocations()``: `commits` commits followed by one variant, then exit.
    @MainActor
    static func allocationProbe(_ arguments: [String]) async throws -> Never {
        guard arguments.count == 2, let variant = Variant(rawValue: arguments[0]), let commits = Int(arguments[1])
        else {
            throw BenchmarkError.setup("live-alloc-probe <variant> <commits>")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-live-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await SQLiteDatabase.open(
            at: directory.appendingPathComponent("probe.sqlite"),
            migrator: TodoSchema.migrator
        )
        _ = try await commitToValue(variant, database: database, commits: commits)
        try await database.close()
        exit(0)
    }

    /// The child of ``allocations()``: `reads` reads of a live query's value, then exit.
    @MainActor
    static func readProbe(_ arguments: [String]) async throws -> Never {
        guard arguments.count == 2, let reads = Int(arguments[1]) else {
            throw BenchmarkError.setup("live-read-probe tracked|untracked <reads>")
        }
        let database = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let live = LiveQuery(database, .count(Todo.all()))
        try await waitUntil(live) { !$0.isLoading }
        var sum = 0
        if arguments[0] == "tracked" {
            withObservationTracking {
                for _ in 0..<reads { sum &+= live.value }
            } onChange: {
            }
        } else {
            for _ in 0..<reads { sum &+= live.value }
        }
        precondition(sum >= 0)
        exit(0)
    }
}

extension Measurement {
    func reportWithP99(target: String = "") -> String {
        let line =
            "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) median \(format(median))  p99 \(format(p99))  (n=\(samples.count))"
        return target.isEmpty ? line : line + "  target: " + target
    }
}
