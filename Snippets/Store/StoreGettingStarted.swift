// A reading list: popular books from an API, the ones you keep in a database,
// and a store that ties the two together.

// snippet.hide
import BaselineHTTP
import BaselinePersistence
import BaselineStore
import Foundation
import GRDB

// snippet.show
// snippet.model
// 1. The model: what the API sends and what the database keeps.
struct Book: Codable, Equatable, Identifiable, Sendable, FetchableRecord, PersistableRecord {
    var id: Int
    var title: String
}

// snippet.request
// 2. The first request: a description of the call. The response type picks
//    the decoding; the client adds the base URL and checks the status.
enum BookAPI {
    static func popular() -> Request<[Book]> { .get("/books/popular") }
}

// snippet.schema
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

// snippet.feature
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

// snippet.run
// 5. The composition root makes each dependency once and hands it down.
let client = HTTPClient(baseURL: URL(string: "https://books.example")!)
let applicationSupport = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
let database = try await SQLiteDatabase.open(
    at: applicationSupport.appending(path: "Library.sqlite"),
    migrator: LibrarySchema.migrator
)
let store = Store(initialState: ReadingList.State()) {
    ReadingList(client: client, database: database)
}

store.send(.task)
await store.send(.refresh).finish()  // suspends exactly as long as the request
if let first = store.popular.first {
    await store.send(.save(first)).finish()
}
print(store.popular.count, "popular,", store.saved.count, "saved")
