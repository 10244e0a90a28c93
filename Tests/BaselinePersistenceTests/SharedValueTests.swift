import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import GRDB
import Testing

/// A count kept in a shared value.
struct SharedCount: Reducer {
    struct State: Equatable {
        var count = Shared(0)
    }

    @CasePathable
    enum Action: Equatable {
        case count(SharedAction<Int>)
        case increment
    }

    let key: SharedKey<Int>

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            if case .increment = action { state.count.value += 1 }
            return .none
        }
        .sharing(\.count, action: \.count, key)
    }
}

@MainActor
@Suite("Shared values in files and rows", .timeLimit(.minutes(2)))
struct SharedValueTests {
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        directory = try TemporaryDirectory()
        url = directory.url.appendingPathComponent("settings/count.json")
    }

    func store(_ key: SharedKey<Int>) -> TestStore<SharedCount.State, SharedCount.Action> {
        TestStore(initialState: SharedCount.State()) { SharedCount(key: key) }
    }

    /// Starts following; `stored` is what the key holds.
    func start(_ store: TestStore<SharedCount.State, SharedCount.Action>, finding stored: Int?) async {
        await store.send(.count(.start)) {
            $0.count.isFollowing = true
            $0.count.isLoading = true
        }
        await store.receive(.count(.loaded(stored))) {
            $0.count.value = stored ?? 0
            $0.count.isLoading = false
        }
    }

    /// Starts following a key whose value cannot be read.
    func start(_ store: TestStore<SharedCount.State, SharedCount.Action>, failingWith failure: SharedFailure) async {
        await store.send(.count(.start)) {
            $0.count.isFollowing = true
            $0.count.isLoading = true
        }
        await store.receive(.count(.loadFailed(failure))) {
            $0.count.isLoading = false
            $0.count.loadError = failure
        }
    }

    func stop(_ store: TestStore<SharedCount.State, SharedCount.Action>) async {
        await store.send(.count(.stop)) { $0.count.isFollowing = false }
        await store.finish()
    }

    /// Runs the helper process with `arguments` and waits for it to exit.
    nonisolated static func runHelper(_ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = try DurabilityTests.helperURL()
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let (exited, sink) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = {
            sink.yield($0.terminationStatus)
            sink.finish()
        }
        try process.run()
        for await status in exited { return status }
        return -1
    }

    func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    // MARK: Files

    @Test func aChangeIsSavedAsJSONWithTheModeAskedFor() async throws {
        let store = store(.file(url, ownerOnly: true))
        await start(store, finding: nil)
        await store.send(.increment) { $0.count.value = 1 }
        await store.send(.increment) { $0.count.value = 2 }
        await stop(store)  // finishing waits for the saves
        #expect(try String(contentsOf: url, encoding: .utf8) == "2")
        #expect(try mode(of: url) == 0o600)
        #expect(try mode(of: url.deletingLastPathComponent()) == 0o700)

        let shared = directory.url.appendingPathComponent("shared.json")
        let other = self.store(.file(shared))
        await other.send(.increment) { $0.count.value = 1 }
        await other.finish()
        #expect(try mode(of: shared) == 0o644)
    }

    @Test func aStoredValueIsLoadedAtStart() async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("41".utf8).write(to: url)
        let store = store(.file(url))
        await start(store, finding: 41)
        await store.send(.increment) { $0.count.value = 42 }
        await stop(store)
        #expect(try String(contentsOf: url, encoding: .utf8) == "42")
    }

    @Test func aFileThatDoesNotDecodeIsMovedAsideNeverOverwritten() async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data("{\"count\": tw".utf8)
        try garbage.write(to: url)
        let reason = Self.decodingFailure(of: garbage)
        let aside = url.deletingLastPathComponent().appendingPathComponent("count.json.corrupt")

        let store = store(.file(url))
        await store.send(.count(.start)) {
            $0.count.isFollowing = true
            $0.count.isLoading = true
        }
        let failure = SharedFailure(SharedFileError.corrupt(movedTo: aside, reason: reason))
        await store.receive(.count(.loadFailed(failure))) {
            $0.count.isLoading = false
            $0.count.loadError = failure
        }
        #expect(try Data(contentsOf: aside) == garbage)
        // The next save writes a new file; the bad one stays aside.
        await store.send(.increment) { $0.count.value = 1 }
        await stop(store)
        #expect(try String(contentsOf: url, encoding: .utf8) == "1")
        #expect(try Data(contentsOf: aside) == garbage)

        // A second bad file takes the next name.
        try Data("nope".utf8).write(to: url)
        let second = self.store(.file(url))
        let secondAside = url.deletingLastPathComponent().appendingPathComponent("count.json.corrupt-2")
        let secondFailure = SharedFailure(
            SharedFileError.corrupt(movedTo: secondAside, reason: Self.decodingFailure(of: Data("nope".utf8)))
        )
        await start(second, failingWith: secondFailure)
        await stop(second)
        #expect(try Data(contentsOf: aside) == garbage)
        #expect(try Data(contentsOf: secondAside) == Data("nope".utf8))
    }

    @Test func aFileLargerThanTheLimitIsLeftWhereItIs() async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x31, count: 2_000).write(to: url)
        await #expect(throws: SharedFileError.tooLarge(size: 2_000, limit: 1_000)) {
            _ = try await SharedKey<Int>.file(url, maximumSize: 1_000).load()
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aWriteFromAnotherProcessArrives() async throws {
        let store = store(.file(url))
        await start(store, finding: nil)
        #expect(try await Self.runHelper(["--shared-file", url.path, "7", "1"]) == 0)
        await store.receive(.count(.loaded(7))) { $0.count.value = 7 }
        // And ours reaches the file the other process reads.
        await store.send(.increment) { $0.count.value = 8 }
        await stop(store)
        #expect(try await SharedKey<Int>.file(url).load() == 8)
    }

    @Test func twoProcessesWritingLeaveOneCompleteFile() async throws {
        let key = SharedKey<Int>.file(url)
        try await key.save?(0)
        // The other process writes 1000, 1001, … until it is stopped; once its
        // first write is seen, this one writes and reads while it goes on.
        let changes = key.changes()
        let process = Process()
        process.executableURL = try DurabilityTests.helperURL()
        process.arguments = ["--shared-file", url.path, "1000", "100000000"]
        process.standardOutput = FileHandle.nullDevice
        let (exited, sink) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in sink.finish() }
        try process.run()
        for await _ in changes where try await key.load() ?? 0 >= 1000 { break }

        let reads = Task.detached {
            var theirs = 0
            for value in 1...300 {
                try await key.save?(value)
                // Every read is a whole value: a torn file would not decode.
                if let read = try await key.load(), read >= 1000 { theirs += 1 }
            }
            return theirs
        }
        let theirs = try await reads.value
        kill(process.processIdentifier, SIGTERM)
        for await _ in exited {}
        #expect(theirs > 0, "the two processes wrote at the same time")
        let last = try #require(try await key.load())
        #expect(last == 300 || last > 1000)
        // Nothing moved aside; a temporary file of the write the signal cut short may remain.
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(names.filter { !$0.hasSuffix(".tmp") } == ["count.json"])
    }

    /// A decoder that, while it fails, lets another writer replace the file.
    final class ReplacingDecoder: JSONDecoder, @unchecked Sendable {  // safety: used by one load at a time, in one test
        let url: URL
        init(replacing url: URL) {
            self.url = url
            super.init()
        }

        override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
            try AtomicFile.write(Data("99".utf8), to: url, permissions: 0o644)
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad"))
        }
    }

    @Test func aFileReplacedSinceItWasReadIsNotMovedAside() async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: url)
        let key = SharedKey<Int>.file(url, decoder: ReplacingDecoder(replacing: url))
        await #expect {
            _ = try await key.load()
        } throws: { error in
            guard case .corrupt(movedTo: nil, _) = error as? SharedFileError else { return false }
            return true
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == "99")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(names == ["count.json"])
    }

    // MARK: Rows

    func openDatabase() async throws -> SQLiteDatabase {
        try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("app.sqlite"),
            migrator: DatabaseMigrator()
        )
    }

    @Test func aRowIsSavedAndLoaded() async throws {
        let database = try await openDatabase()
        let store = store(.row("counter", in: database))
        await start(store, finding: nil)
        await store.send(.increment) { $0.count.value = 1 }
        await stop(store)
        let stored = try await database.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT CAST(value AS TEXT) FROM baseline_shared_values WHERE name = 'counter'"
            )
        }
        #expect(stored == "1")
        let again = self.store(.row("counter", in: database))
        await start(again, finding: 1)
        await stop(again)
    }

    @Test func aRowCommittedByAnotherProcessArrives() async throws {
        let database = try await openDatabase()
        let store = store(.row("counter", in: database))
        await start(store, finding: nil)
        #expect(
            try await Self.runHelper([
                "--shared-row", directory.url.appendingPathComponent("app.sqlite").path, "counter", "12",
            ]) == 0
        )
        await store.receive(.count(.loaded(12))) { $0.count.value = 12 }
        await stop(store)
    }

    @Test func aRowCommittedByOtherCodeInThisProcessArrives() async throws {
        let database = try await openDatabase()
        let store = store(.row("counter", in: database))
        await start(store, finding: nil)
        try await SharedKey<Int>.row("counter", in: database).save?(5)
        await store.receive(.count(.loaded(5))) { $0.count.value = 5 }
        await stop(store)
    }

    @Test func aRowThatDoesNotDecodeIsALoadError() async throws {
        let database = try await openDatabase()
        try await SharedKey<String>.row("counter", in: database).save?("many")
        let store = store(.row("counter", in: database))
        let failure = SharedFailure(SharedRowError.corrupt(reason: Self.decodingFailure(of: Data("\"many\"".utf8))))
        await start(store, failingWith: failure)
        await stop(store)
    }

    static func decodingFailure(of data: Data) -> String {
        do {
            _ = try JSONDecoder().decode(Int.self, from: data)
            return "decoded"
        } catch {
            return String(describing: error)
        }
    }
}
