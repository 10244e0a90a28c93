import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import Foundation
import Observation

/// Shared values: from one holder's change to the value in another holder,
/// and to the change being saved (written and synced). The keys run in
/// interleaved rounds, so that the machine's drift affects them alike:
///
/// - **memory**: an in-memory key, two stores in one process;
/// - **file** and **row**: a JSON file and a database row, two stores in one
///   process (the other holder hears it in memory; the save is the file's
///   atomic replace, or the row's transaction);
/// - **file, other process** and **row, other process**: the other holder
///   has its own shared values (and, for the row, its own connection), as
///   another process would: it hears the change only through the folder
///   watch, once the save is done.
@MainActor
enum SharedValueBenchmarks {
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-shared-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("Shared values — release build")

        var visible: [Variant: Measurement] = [:]
        var saved: [Variant: Measurement] = [:]
        for round in 0..<3 {
            for variant in Variant.allCases {
                let (seen, stored) = try await writes(variant, in: directory, round: round, count: 220)
                visible[variant, default: Measurement(name: "write → other holder (\(variant.rawValue))")].samples +=
                    seen
                if variant.saves {
                    saved[variant, default: Measurement(name: "write → saved (\(variant.rawValue))")].samples += stored
                }
            }
        }
        for variant in Variant.allCases {
            print(visible[variant]!.reportWithP99())
        }
        for variant in Variant.allCases where variant.saves {
            print(saved[variant]!.reportWithP99())
        }
    }

    enum Variant: String, CaseIterable {
        case memory
        case file
        case row
        case fileOtherProcess = "file, other process"
        case rowOtherProcess = "row, other process"

        var saves: Bool { self != .memory }
        var separate: Bool { self == .fileOtherProcess || self == .rowOtherProcess }
    }

    /// A setting: one shared number.
    struct Setting: Reducer {
        struct State: Equatable {
            var number = Shared(0)
        }

        @CasePathable
        enum Action: Equatable {
            case number(SharedAction<Int>)
            case set(Int)
        }

        let key: SharedKey<Int>

        var body: some Reducer<State, Action> {
            Reduce { state, action in
                if case let .set(number) = action { state.number.value = number }
                return .none
            }
            .sharing(\.number, action: \.number, key)
        }
    }

    /// Samples of `count` writes by one store (the first 20 warm up): until
    /// the other store holds the value, and until the write is saved.
    static func writes(
        _ variant: Variant,
        in directory: URL,
        round: Int,
        count: Int
    ) async throws -> (visible: [Duration], saved: [Duration]) {
        let name = "\(round)-\(variant.rawValue.replacingOccurrences(of: " ", with: "-"))"
        let file = directory.appendingPathComponent("\(name).json")
        let databaseURL = directory.appendingPathComponent("\(name).sqlite")
        var databases: [SQLiteDatabase] = []
        func key(separate: Bool) async throws -> SharedKey<Int> {
            switch variant {
            case .memory: return .inMemory(name)
            case .file, .fileOtherProcess: return .file(file)
            case .row, .rowOtherProcess:
                if databases.isEmpty || separate {
                    databases.append(try await SQLiteDatabase.open(at: databaseURL, migrator: .init()))
                }
                return .row("number", in: databases.last!)
            }
        }
        let writerKey = try await key(separate: false)
        let readerKey = try await key(separate: variant.separate)
        let shared = SharedValues()
        let writer = Store(initialState: Setting.State()) {
            Setting(key: writerKey)
        } withDependencies: {
            $0.sharedValues = shared
        }
        let reader = Store(initialState: Setting.State()) {
            Setting(key: readerKey)
        } withDependencies: {
            $0.sharedValues = variant.separate ? SharedValues() : shared
        }
        writer.send(.number(.start))
        reader.send(.number(.start))
        _ = await until(writer) { !$0.isLoading }
        _ = await until(reader) { !$0.isLoading }

        let clock = ContinuousClock()
        var visible: [Duration] = []
        var saved: [Duration] = []
        for number in 1...count {
            let start = clock.now
            let write = writer.send(.set(number))
            let seen = await until(reader) { $0.value == number }
            await write.finish()  // the save's effect
            let stored = clock.now
            if number > 20 {
                visible.append(start.duration(to: seen))
                saved.append(start.duration(to: stored))
            }
        }
        writer.send(.number(.stop))
        reader.send(.number(.stop))
        for database in databases { try await database.close() }
        return (visible, saved)
    }

    /// Waits until `condition` holds for the store's number; when it did.
    static func until(
        _ store: Store<Setting.State, Setting.Action>,
        _ condition: (Shared<Int>) -> Bool
    ) async -> ContinuousClock.Instant {
        // The store changes on the main actor only, so nothing changes between a check and arming the next.
        while !condition(store.number) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking {
                    _ = store.number
                } onChange: {
                    // Called as the value is about to change: look once it has.
                    Task { @MainActor in continuation.resume() }
                }
            }
        }
        return ContinuousClock.now
    }
}
