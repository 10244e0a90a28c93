// Lists that follow the database: a live query in a model, the queries it
// can run, a search that changes its query, and the same list in a store.

// snippet.hide
import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import Foundation
import GRDB
import Observation

struct Todo: Codable, Equatable, Identifiable, Sendable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var text: String
    var day: Int
    var isDone = false
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The to-dos whose text contains `search` as typed (`%` and `_` included), ASCII case ignored.
    static func matching(_ search: String) -> QueryInterfaceRequest<Todo> {
        let all = Todo.order(Column("id"))
        return search.isEmpty ? all : all.filter(literal: "instr(lower(text), lower(\(search))) > 0")
    }
}

var migrator = DatabaseMigrator()
migrator.registerMigration("v1") { db in
    try db.create(table: "todo") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("text", .text).notNull()
        table.column("day", .integer).notNull()
        table.column("isDone", .boolean).notNull()
    }
}
let database = try await SQLiteDatabase.inMemory(migrator: migrator)

// snippet.show
// snippet.model
@MainActor
@Observable
final class TodosModel {
    let todos: LiveQuery<[Todo]>
    let remaining: LiveQuery<Int>

    init(database: SQLiteDatabase) {
        // Each starts now and stops when the model goes.
        todos = LiveQuery(database, .all(Todo.order(Column("id").desc)))
        remaining = LiveQuery(database, .count(Todo.filter(Column("isDone") == false)))
    }
}
// A view reads `model.todos.value`, `model.todos.isLoading` and `model.todos.loadError`.
// snippet.end

// snippet.queries
let all: DatabaseQuery<[Todo]> = .all(Todo.order(Column("id")))
let one: DatabaseQuery<Todo?> = .one(Todo.filter(Column("text") == "Buy milk"))
let open: DatabaseQuery<Int> = .count(Todo.filter(Column("isDone") == false))
let byDay: DatabaseQuery<[QuerySection<Int, Todo>]> = .sectioned(Todo.order(Column("day"), Column("id")), by: \.day)
let longest = DatabaseQuery(placeholder: 0) { db in
    try Int.fetchOne(db, sql: "SELECT max(length(text)) FROM todo") ?? 0
}
// snippet.end

// snippet.search
@MainActor
@Observable
final class SearchModel {
    let results: LiveQuery<[Todo]>
    var search = "" {
        // A new query: the old rows stay, `isLoading` is set, and no result
        // of an older search arrives after this line.
        didSet { results.load(.all(Todo.matching(search))) }
    }

    init(database: SQLiteDatabase) {
        results = LiveQuery(database, .all(Todo.matching("")))
    }
}
// snippet.end

// snippet.store
struct TodoSearch: Reducer {
    struct State: Equatable {
        var search = ""
        var todos = Fetched<[Todo]>([])
    }

    @CasePathable
    enum Action: Equatable {
        case todos(FetchAction<[Todo]>)
        case searchChanged(String)
    }

    let database: SQLiteDatabase

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            if case let .searchChanged(search) = action { state.search = search }
            return .none
        }
        // Each result arrives as `.todos(.loaded(…))`; a new search starts over.
        .fetching(\.todos, action: \.todos, query: \.search) { [database] search in
            database.live(.all(Todo.matching(search)))
        }
    }
}

let store = Store(initialState: TodoSearch.State()) { TodoSearch(database: database) }
store.send(.todos(.start))
// snippet.end

// snippet.hide
try await database.write { db in
    var todo = Todo(text: "Buy milk", day: 1)
    try todo.insert(db)
}
let model = TodosModel(database: database)
try await waitUntil(model.todos) { $0.value.count == 1 }
print(
    model.todos.value.map(\.text),
    all.placeholder,
    one.placeholder as Any,
    open.placeholder,
    byDay.placeholder,
    longest.placeholder
)
let searching = SearchModel(database: database)
searching.search = "MILK"
try await waitUntil(searching.results) { $0.value.map(\.text) == ["Buy milk"] && !$0.isLoading }
try await waitUntil(store) { $0.todos.value.count == 1 }
store.send(.todos(.stop))
try await database.close()
