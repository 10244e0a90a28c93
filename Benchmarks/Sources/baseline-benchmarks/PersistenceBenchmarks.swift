import BaselineConcurrency
import BaselinePersistence
import Foundation
import GRDB
import SpacePhotosCore

/// Issue 5's figures: inserts, a sorted fetch, and commit-to-observer delay,
/// on real database files in a temporary directory.
enum PersistenceBenchmarks {
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-bench-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var counter = 0
        func freshURL() -> URL {
            counter += 1
            return directory.appendingPathComponent("bench-\(counter).sqlite")
        }
        let texts10k = (0..<10_000).map { "to-do number \($0)" }
        let texts50k = (0..<50_000).map { "to-do number \($0)" }

        print("Persistence (SQLite file, WAL) — release build")

        let baseline10k = try await Measurement.run("insert 10,000 to-dos, one transaction (Baseline)", iterations: 15)
        {
            TodoRepository(database: try await SQLiteDatabase.open(at: freshURL(), migrator: TodoSchema.migrator))
        } body: { repository in
            try await repository.add(contentsOf: texts10k)
        }
        let grdb10k = try await Measurement.run("insert 10,000 to-dos, one transaction (GRDB direct)", iterations: 15) {
            let pool = try DatabasePool(path: freshURL().path)
            try TodoSchema.migrator.migrate(pool)
            return pool
        } body: { pool in
            // The same inserts as the repository's batch: one prepared statement.
            let date = Date().databaseValue
            try await pool.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO todo (text, date) VALUES (?, ?)")
                for text in texts10k {
                    try insert.execute(arguments: [text, date])
                }
            }
        }
        let records10k = try await Measurement.run("insert 10,000 to-dos as Codable records (GRDB)", iterations: 15) {
            let pool = try DatabasePool(path: freshURL().path)
            try TodoSchema.migrator.migrate(pool)
            return pool
        } body: { pool in
            let date = Date()
            try await pool.write { db in
                for text in texts10k {
                    var todo = Todo(text: text, date: date)
                    try todo.insert(db)
                }
            }
        }
        print(baseline10k.report(target: "≤ 50 ms"))
        print(grdb10k.report())
        print(String(format: "  Baseline / GRDB: %.2f× (target ≤ 1.3×)", ratio(baseline10k.median, grdb10k.median)))
        print(records10k.report())

        let baseline50k = try await Measurement.run(
            "insert 50,000 to-dos, one transaction (Baseline)",
            iterations: 7,
            warmup: 1
        ) {
            TodoRepository(database: try await SQLiteDatabase.open(at: freshURL(), migrator: TodoSchema.migrator))
        } body: { repository in
            try await repository.add(contentsOf: texts50k)
        }
        print(baseline50k.report())

        let populated = TodoRepository(
            database: try await SQLiteDatabase.open(at: freshURL(), migrator: TodoSchema.migrator)
        )
        try await populated.add(contentsOf: texts10k)
        let fetch = try await Measurement.run("fetch 10,000 to-dos sorted by date", iterations: 30) {
            populated
        } body: { repository in
            let todos = try await repository.all()
            precondition(todos.count == 10_000)
        }
        print(fetch.report())

        print(
            try await commitToObserver(
                database: try await SQLiteDatabase.open(at: freshURL(), migrator: TodoSchema.migrator)
            )
            .report(target: "≤ 5 ms median")
        )
    }

    /// From just before a write transaction commits to an observer holding the
    /// new result, over 300 commits.
    static func commitToObserver(database: SQLiteDatabase) async throws -> Measurement {
        let clock = ContinuousClock()
        let committing = LockedValue<ContinuousClock.Instant?>(nil)
        let (received, receivedSink) = AsyncStream.makeStream(of: (Int, ContinuousClock.Instant).self)
        let observer = StreamObserver(observing: { database.observe { db in try Todo.fetchCount(db) } }) { count in
            receivedSink.yield((count, clock.now))
        }
        observer.start()
        var arrivals = received.makeAsyncIterator()
        _ = await arrivals.next()  // the initial value

        var measurement = Measurement(name: "commit → observer receives the change")
        for index in 0..<320 {
            try await database.write { db in
                var todo = Todo(text: "observed \(index)", date: Date())
                try todo.insert(db)
                committing.withLock { $0 = clock.now }  // the last thing before COMMIT
            }
            guard let (count, arrival) = await arrivals.next(), count == index + 1, let start = committing.current
            else {
                throw CancellationError()
            }
            if index >= 20 { measurement.samples.append(start.duration(to: arrival)) }
        }
        await observer.stop()
        return measurement
    }
}
