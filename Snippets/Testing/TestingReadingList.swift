// Tests of the reading list from "Getting Started with Baseline": the real
// HTTP client on a stub transport, the real database in memory, and a test
// store that checks every step.

// snippet.hide
import BaselineHTTP
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import GRDB
import Testing

// 1. The model: what the API sends and what the database keeps.
struct Book: Codable, Equatable, Identifiable, Sendable, FetchableRecord, PersistableRecord {
    var id: Int
    var title: String
}

// 2. The first request: a description of the call. The response type picks
//    the decoding; the client adds the base URL and checks the status.
enum BookAPI {
    static func popular() -> Request<[Book]> { .get("/books/popular") }
}

// 3. The first database: a schema as numbered migrations. A migration that
//    has run never runs again, so a shipped one is never edited; add another.
enum LibrarySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: books") { db in
            try db.create(table: "book") { table in
                table.primaryKey("id", .integer)
                table.column("title", .text).notNull()
            }
        }
        return migrator
    }
}

// 4. The feature: its state, what can happen to it, and what follows.
struct ReadingList: Reducer {
    struct State: Equatable {
        var popular: [Book] = []
        var saved: [Book] = []
        var isLoading = false
        var errorMessage: String?
    }

    enum Action: Equatable, Sendable {
        case task  // the screen appeared
        case refresh
        case popularLoaded([Book])
        case loadFailed(String)
        case save(Book)
        case savedChanged([Book])
    }

    enum CancelID { case refresh }

    let client: HTTPClient
    let database: SQLiteDatabase

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .task:
            // Lives as long as the screen: the database sends the saved books
            // now and after every commit that changes them.
            return .run { [database] send in
                let saved = database.observe { db in try Book.order(Column("title")).fetchAll(db) }
                for try await books in saved {
                    await send(.savedChanged(books))
                }
            }
        case .refresh:
            state.isLoading = true
            state.errorMessage = nil
            return .run { [client] send in
                let books = try await client.send(BookAPI.popular()).value
                await send(.popularLoaded(books))
            } catch: { error, send in
                await send(.loadFailed("\(error)"))
            }
            // A second pull-to-refresh replaces the first instead of racing it.
            .cancellable(id: CancelID.refresh, cancelInFlight: true)
        case let .popularLoaded(books):
            state.isLoading = false
            state.popular = books
            return .none
        case let .loadFailed(message):
            state.isLoading = false
            state.errorMessage = message
            return .none
        case let .save(book):
            // No state change here: the observation above reports the commit.
            return .run { [database] _ in
                try await database.write { db in try book.save(db) }
            }
        case let .savedChanged(books):
            state.saved = books
            return .none
        }
    }
}

// snippet.show
// snippet.setup
@MainActor
@Suite(.timeLimit(.minutes(1)))
struct ReadingListTests {
    let transport = StubTransport()
    let dune = Book(id: 1, title: "Dune")

    // Real dependencies with test-sized insides: the client's network is a
    // stub, and the database lives in memory, with the app's migrations.
    func makeStore() async throws -> TestStore<ReadingList.State, ReadingList.Action> {
        let client = HTTPClient(baseURL: URL(string: "https://books.test")!, transport: transport)
        let database = try await SQLiteDatabase.inMemory(migrator: LibrarySchema.migrator)
        return TestStore(initialState: ReadingList.State()) {
            ReadingList(client: client, database: database)
        }
    }
    // snippet.end

    // snippet.refresh
    @Test func refreshing() async throws {
        transport.on(.get, "/books/popular", respond: try .json([dune]))
        let store = try await makeStore()

        await store.send(.refresh) {
            $0.isLoading = true
        }
        await store.receive(.popularLoaded([dune])) {
            $0.isLoading = false
            $0.popular = [dune]
        }
        await store.finish()
    }
    // snippet.end

    // snippet.observe
    @Test func savingABook() async throws {
        let store = try await makeStore()

        // The observation runs until the screen goes away: keep its task.
        let screen = await store.send(.task)
        await store.receive(.savedChanged([]))  // the first result: nothing saved yet

        await store.send(.save(dune))  // no state change of its own...
        await store.receive(.savedChanged([dune])) {  // ...the observation reports the commit
            $0.saved = [dune]
        }

        // The screen goes away; without this, finish() would wait for the time limit.
        screen.cancel()
        await store.finish()
    }
    // snippet.end
}
