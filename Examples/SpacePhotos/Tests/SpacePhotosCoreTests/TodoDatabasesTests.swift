import BaselinePersistence
import BaselineTesting
import Foundation
import GRDB
import SpacePhotosCore
import Testing

@Suite("TodoDatabases: a to-do list per member", .timeLimit(.minutes(2)))
struct TodoDatabasesTests {
    let directory: TemporaryDirectory
    let astro = User.ID(rawValue: "astro")
    let luna = User.ID(rawValue: "luna")

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func eachMemberFindsTheirOwnListAndNoOneElses() async throws {
        let databases = TodoDatabases.files(in: directory.url)
        let todos = TodoRepository(databases: databases)
        await #expect(throws: TodoError.noList) { try await todos.add("before any login") }

        try await databases.open(for: astro)
        try await todos.add("Astro's milk")
        try await databases.open(for: luna)
        #expect(try await todos.all().isEmpty)
        try await todos.add("Luna's eggs")

        try await databases.open(for: astro)
        #expect(try await todos.all().map(\.text) == ["Astro's milk"])
        await #expect(throws: TodoError.noList) { try await databases.database(for: luna) }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasSuffix(".sqlite") }
        #expect(files.sorted() == ["todos-astro.sqlite", "todos-luna.sqlite"])
    }

    @Test func aLiveListEndsWhenAnotherMembersOpens() async throws {
        let databases = TodoDatabases.files(in: directory.url)
        let todos = TodoRepository(databases: databases)
        try await databases.open(for: astro)
        try await todos.add("Astro's milk")
        var lists = todos.live().makeAsyncIterator()
        #expect(try await lists.next()?.map(\.text) == ["Astro's milk"])
        try await databases.open(for: luna)
        await #expect(throws: SQLiteDatabaseError.closed) { _ = try await lists.next() }
    }

    @Test func anIDIsAFileNameAndNeverAPath() async throws {
        let databases = TodoDatabases.files(in: directory.url)
        try await databases.open(for: User.ID(rawValue: "../up/là"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files.filter { $0.hasSuffix(".sqlite") } == ["todos-%2E%2E%2Fup%2Fl%C3%A0.sqlite"])
    }

    @Test func theSharedFileOfEarlierVersionsGoesToTheFirstMemberItSyncedFor() async throws {
        // One that synced for luna: astro does not take it, luna does.
        try await makeSharedFile(boundTo: "luna", holding: "Luna's eggs")
        let databases = TodoDatabases.files(in: directory.url)
        let todos = TodoRepository(databases: databases)
        try await databases.open(for: astro)
        #expect(try await todos.all().isEmpty)
        try await databases.open(for: luna)
        #expect(try await todos.all().map(\.text) == ["Luna's eggs"])
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("todos.sqlite").path))
    }

    @Test func aSharedFileThatNeverSyncedGoesToTheFirstMemberToLogIn() async throws {
        try await makeSharedFile(boundTo: nil, holding: "Buy milk")
        let databases = TodoDatabases.files(in: directory.url)
        let todos = TodoRepository(databases: databases)
        try await databases.open(for: astro)
        #expect(try await todos.all().map(\.text) == ["Buy milk"])
        try await databases.open(for: luna)
        #expect(try await todos.all().isEmpty)
    }

    func makeSharedFile(boundTo account: String?, holding text: String) async throws {
        let database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("todos.sqlite"),
            migrator: TodoSchema.migrator
        )
        try await TodoRepository(database: database).add(text)
        if let account {
            try await database.write { db in
                try db.execute(sql: "INSERT INTO _sync_state (key, value) VALUES ('account', ?)", arguments: [account])
            }
        }
        try await database.close()
    }
}
