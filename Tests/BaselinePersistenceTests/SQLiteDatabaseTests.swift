import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import Testing

@Suite("SQLiteDatabase", .timeLimit(.minutes(1)))
struct SQLiteDatabaseTests {
    struct Refused: Error {}

    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test(arguments: [true, false])
    func writesCommitAndReadsSeeThem(inMemory: Bool) async throws {
        let database =
            inMemory
            ? try await SQLiteDatabase.inMemory(migrator: Note.migrator)
            : try await SQLiteDatabase.open(
                at: directory.url.appendingPathComponent("db.sqlite"),
                migrator: Note.migrator
            )
        let inserted = try await database.write { db in
            var note = Note(text: "hello")
            try note.insert(db)
            return note
        }
        #expect(inserted.id != nil)
        #expect(try await database.read { db in try Note.fetchAll(db) } == [inserted])
        try await database.close()
    }

    @Test func aFileDatabaseUsesWAL() async throws {
        let database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("db.sqlite"),
            migrator: Note.migrator
        )
        let mode = try await database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func aNewDatabaseAndItsFolderAreTheOwnersOnly() async throws {
        let folder = directory.url.appendingPathComponent("data/app")
        let url = folder.appendingPathComponent("db.sqlite")
        let database = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        try await database.write { db in
            var note = Note(text: "private")
            try note.insert(db)
        }
        for path in [url.path, url.path + "-wal", url.path + "-shm"] {
            #expect(try mode(of: path) == 0o600, "\(path)")
        }
        #expect(try mode(of: folder.path) == 0o700)
        try await database.close()
    }

    @Test func anExistingDatabaseKeepsItsMode() async throws {
        let url = directory.url.appendingPathComponent("shared.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o640]))
        let database = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        #expect(try mode(of: url.path) == 0o640)
        try await database.close()
    }

    func mode(of path: String) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    @Test func aThrowingWriteRollsBack() async throws {
        let database = try await SQLiteDatabase.inMemory(migrator: Note.migrator)
        await #expect(throws: Refused.self) {
            try await database.write { db in
                var note = Note(text: "half done")
                try note.insert(db)
                throw Refused()
            }
        }
        #expect(try await database.read { db in try Note.fetchCount(db) } == 0)
    }

    @Test func dataSurvivesReopening() async throws {
        let url = directory.url.appendingPathComponent("db.sqlite")
        let first = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        try await first.write { db in
            var note = Note(text: "kept")
            try note.insert(db)
        }
        try await first.close()
        let second = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        #expect(try await second.read { db in try Note.fetchAll(db).map(\.text) } == ["kept"])
    }

    @Test func aClosedDatabaseRefusesWork() async throws {
        let database = try await SQLiteDatabase.inMemory(migrator: Note.migrator)
        try await database.close()
        try await database.close()  // twice is fine
        #expect(database.isClosed)
        await #expect(throws: SQLiteDatabaseError.closed) { try await database.read { db in try Note.fetchCount(db) } }
        await #expect(throws: SQLiteDatabaseError.closed) { try await database.write { db in try Note.deleteAll(db) } }
    }

    @Test func aFileThatIsNotADatabaseIsReportedCorruptAndCanBeMovedAside() async throws {
        let url = directory.url.appendingPathComponent("db.sqlite")
        try Data(repeating: 0x42, count: 8_192).write(to: url)
        await #expect(throws: SQLiteDatabaseError.corrupt(path: url.path)) {
            try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        }
        let aside = try SQLiteDatabase.moveAside(databaseAt: url, now: Date(timeIntervalSince1970: 1_000))
        #expect(aside.lastPathComponent == "db.sqlite.corrupt-1000")
        #expect(try Data(contentsOf: aside) == Data(repeating: 0x42, count: 8_192))  // nothing lost
        let fresh = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
        #expect(try await fresh.read { db in try Note.fetchCount(db) } == 0)
    }

    @Test func aDamagedDatabaseIsATypedErrorNotACrash() async throws {
        let url = directory.url.appendingPathComponent("db.sqlite")
        // Fill a database (rollback-journal mode, so every page is in the main file).
        let queue = try DatabaseQueue(path: url.path)
        try Note.migrator.migrate(queue)
        try await queue.write { db in
            for index in 0..<500 {
                var note = Note(text: String(repeating: "note \(index) ", count: 20))
                try note.insert(db)
            }
        }
        try queue.close()
        // Overwrite the pages after the first with garbage.
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: 4_096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64 * 1_024))
        try handle.close()

        await #expect {
            let reopened = try await SQLiteDatabase.open(at: url, migrator: Note.migrator)
            _ = try await reopened.read { db in try Note.fetchAll(db) }
        } throws: { error in
            error as? SQLiteDatabaseError == .corrupt(path: url.path)
        }
    }

    @Test func aFailedMigrationIsATypedError() async throws {
        var broken = Note.migrator
        broken.registerMigration("broken") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER)") }
        await #expect {
            try await SQLiteDatabase.open(at: directory.url.appendingPathComponent("db.sqlite"), migrator: broken)
        } throws: { error in
            if case .cannotOpen = error as? SQLiteDatabaseError { true } else { false }
        }
    }
}
