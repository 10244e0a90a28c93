import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

/// An in-memory to-do database and its repository, whose items get the
/// dates of a `TickingDate` (the `n`th written is 1,700,000,000 + `n` s).
func makeTodoRepository() async throws -> (SQLiteDatabase, TodoRepository) {
    let database = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
    let clock = TickingDate()
    return (database, TodoRepository(database: database, now: { clock.next() }))
}

/// A to-do database in a file of `directory` (WAL mode, as the app opens
/// it), and its repository, dated as ``makeTodoRepository()``'s.
func makeTodoRepository(in directory: TemporaryDirectory) async throws -> (SQLiteDatabase, TodoRepository) {
    let database = try await SQLiteDatabase.open(
        at: directory.url.appendingPathComponent("todos.sqlite"),
        migrator: TodoSchema.migrator
    )
    let clock = TickingDate()
    return (database, TodoRepository(database: database, now: { clock.next() }))
}

/// The live list on a real SQLite file, exhaustively: every list the
/// database sends is an action the test receives, with the state it makes;
/// each test ends with no effect and no observation left running.
@MainActor
@Suite("TodoList: the live list", .timeLimit(.minutes(2)))
struct TodoListLiveTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase
    let repository: TodoRepository

    init() async throws {
        directory = try TemporaryDirectory()
        (database, repository) = try await makeTodoRepository(in: directory)
    }

    /// The date of the `n`th write (`TickingDate`'s `n`th tick).
    func date(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(n)) }

    func makeStore(_ state: TodoList.State = TodoList.State()) -> TestStore<TodoList.State, TodoList.Action> {
        TestStore(initialState: state) { [repository] in TodoList(repository: repository) }
    }

    /// Starts following and receives the first list, `todos`.
    func start(_ store: TestStore<TodoList.State, TodoList.Action>, expecting todos: [Todo]) async {
        await store.send(.todos(.start)) {
            $0.todos.isFollowing = true
            $0.todos.isLoading = true
        }
        await store.receive(.todos(.loaded(todos))) {
            $0.todos.value = todos
            $0.todos.isLoading = false
        }
    }

    /// Stops following, and checks that no effect and no observation outlive the test.
    func stop(_ store: TestStore<TodoList.State, TodoList.Action>) async throws {
        await store.send(.todos(.stop)) { $0.todos.isFollowing = false }
        await store.finish()
        try await database.waitUntilObservationsEnd()
    }

    /// Sets the search as the bound field does: the last list stays, loading,
    /// until the list of the new search, `expected`, arrives.
    func search(
        _ store: TestStore<TodoList.State, TodoList.Action>,
        _ text: String,
        expecting expected: [Todo]
    ) async {
        await store.send(.binding(.set(\.search, text))) {
            $0.search = text
            $0.todos.isLoading = true
        }
        await store.receive(.todos(.loaded(expected))) {
            $0.todos.value = expected
            $0.todos.isLoading = false
        }
    }

    @Test func startingListsTheItemsThenEachWriteByAnyoneArrives() async throws {
        try await repository.add(contentsOf: ["Water the plants", "Call mum"])
        let water = Todo(id: 1, text: "Water the plants", date: date(1))
        let mum = Todo(id: 2, text: "Call mum", date: date(1))
        let store = makeStore()
        await start(store, expecting: [water, mum])

        let repository = self.repository
        let milk = try await Task.detached { try await repository.add("Buy milk") }.value
        #expect(milk == Todo(id: 3, text: "Buy milk", date: date(2)))
        // Nothing on this side asked for it: the live query brought it.
        await store.receive(.todos(.loaded([water, mum, milk]))) { $0.todos.value = [water, mum, milk] }

        let ferns = try await repository.edit(id: 1, text: "Water the ferns")
        await store.receive(.todos(.loaded([ferns, mum, milk]))) { $0.todos.value = [ferns, mum, milk] }

        try await repository.delete(id: 2)
        await store.receive(.todos(.loaded([ferns, milk]))) { $0.todos.value = [ferns, milk] }
        try await stop(store)
    }

    @Test func aSearchNarrowsTheListAndClearingItListsEverything() async throws {
        try await repository.add(contentsOf: ["Water the plants", "Buy a WATERMELON", "Call mum"])
        let all = try await repository.all()
        let store = makeStore()
        await start(store, expecting: all)

        await search(store, "water", expecting: [all[0], all[1]])  // the case of ASCII letters is ignored
        // A write the search matches arrives; the list stays filtered.
        let can = try await repository.add("Fill the watering can")
        await store.receive(.todos(.loaded([all[0], all[1], can]))) { $0.todos.value = [all[0], all[1], can] }
        await search(store, "melon", expecting: [all[1]])
        await search(store, "nothing like this", expecting: [])
        await search(store, "", expecting: all + [can])
        try await stop(store)
    }

    @Test func theSelectionIsKeptWhileASearchHidesIt() async throws {
        try await repository.add(contentsOf: ["apples", "bread", "apricots"])
        let all = try await repository.all()
        let bread = try #require(all[1].id)
        let store = makeStore(TodoList.State(selectedID: bread))
        await start(store, expecting: all)
        #expect(store.state.selectedTodo == all[1])

        await search(store, "ap", expecting: [all[0], all[2]])
        #expect(store.state.selectedTodo == nil, "hidden, not forgotten")
        await search(store, "", expecting: all)
        #expect(store.state.selectedTodo == all[1])

        // Moving in a narrowed list moves among the rows it shows.
        await search(store, "ap", expecting: [all[0], all[2]])
        await store.send(.moveSelection(by: 1)) { $0.selectedID = all[0].id }
        await store.send(.moveSelection(by: 1)) { $0.selectedID = all[2].id }
        try await stop(store)
    }

    @Test func anEditorWhoseItemASearchHidesStaysOpen() async throws {
        try await repository.add(contentsOf: ["apples", "bread"])
        let all = try await repository.all()
        let id = try #require(all[1].id)
        let store = makeStore()
        await start(store, expecting: all)
        await store.send(.editTapped(id: id)) {
            $0.selectedID = id
            $0.editor = TodoEditor.State(id: id, text: "bread")
        }
        await store.send(.editor(.presented(.binding(.set(\.text, "bread and butter"))))) {
            $0.editor?.text = "bread and butter"
        }
        // Hidden by the search, not deleted: the text typed stays.
        await search(store, "apple", expecting: [all[0]])
        #expect(store.state.editor?.text == "bread and butter")
        await search(store, "", expecting: all)
        // Deleted elsewhere: the unsearched list says so, and the editor goes.
        try await repository.delete(id: id)
        await store.receive(.todos(.loaded([all[0]]))) {
            $0.todos.value = [all[0]]
            $0.editor = nil
        }
        try await stop(store)
    }

    @Test func aClosedDatabaseStopsTheListWithAMessageAndKeepsTheLastOne() async throws {
        try await repository.add(contentsOf: ["Water the plants"])
        let all = try await repository.all()
        let store = makeStore()
        await start(store, expecting: all)

        try await database.close()
        let closed = FetchFailure(SQLiteDatabaseError.closed)
        let message = "The to-do list could not be read: The database is closed."
        await store.receive(.todos(.failed(closed))) {
            $0.todos.isFollowing = false
            $0.todos.loadError = closed
            $0.errorMessage = message
        }
        #expect(store.state.todos.value == all, "the last list stays")
        // No longer followed: a search changes the field, not the query.
        await store.send(.binding(.set(\.search, "water"))) { $0.search = "water" }
        // Starting again fails again, and says so.
        await store.send(.todos(.start)) {
            $0.todos.isFollowing = true
            $0.todos.isLoading = true
        }
        await store.receive(.todos(.failed(closed))) {
            $0.todos.isFollowing = false
            $0.todos.isLoading = false
        }
        await store.finish()
        try await database.waitUntilObservationsEnd()
    }
}

/// The list in a plain `Store`, as the screens use it: a draft added
/// through the store, and the store's lifetime.
@MainActor
@Suite("TodoList: the list in a store", .timeLimit(.minutes(2)))
struct TodoListStoreTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase
    let repository: TodoRepository

    init() async throws {
        directory = try TemporaryDirectory()
        (database, repository) = try await makeTodoRepository(in: directory)
    }

    func makeStore() -> Store<TodoList.State, TodoList.Action> {
        Store(initialState: TodoList.State()) { [repository] in TodoList(repository: repository) }
    }

    @Test func addingShowsTheItemOnceCommitted() async throws {
        let store = makeStore()
        store.send(.todos(.start))
        try await waitUntil(store) { !$0.todos.isLoading }
        store.binding(\.draft).value = "Water the plants"
        await store.send(.submitDraft).finish()
        try await waitUntil(store) { $0.todos.value.count == 1 }
        #expect(store.todos.value.map(\.text) == ["Water the plants"])
        #expect(store.selectedTodo?.text == "Water the plants")
        #expect(store.errorMessage == nil)
        store.send(.todos(.stop))
        try await database.waitUntilObservationsEnd()
    }

    @Test func itStaysUsableWithTenThousandItems() async throws {
        try await repository.add(contentsOf: (0..<10_000).map { "item \($0)" })
        let store = makeStore()
        store.send(.todos(.start))
        try await waitUntil(store) { $0.todos.value.count == 10_000 }
        store.binding(\.draft).value = "one more"
        await store.send(.submitDraft).finish()
        try await waitUntil(store) { $0.todos.value.count == 10_001 }
        #expect(store.todos.value.last?.text == "one more")
        store.send(.todos(.stop))
        try await database.waitUntilObservationsEnd()
    }

    /// In a plain store: a test store describes each action it receives,
    /// seconds for a list of 10,000 in a debug build.
    @Test func tenThousandItemsNarrowAndWidenAsTheSearchChanges() async throws {
        try await repository.add(contentsOf: (0..<10_000).map { "Item \($0)" })
        let all = try await repository.all()
        let store = makeStore()
        store.send(.todos(.start))
        try await waitUntil(store) { !$0.todos.isLoading }
        #expect(store.todos.value == all)
        let searches: [(text: String, matches: Int)] = [
            ("item 42", 111),  // 42, 420–429, 4200–4299
            ("ITEM 421", 11),
            ("item 4210", 1),
            ("item 4", 1_111),  // wider again
            ("", 10_000),
            ("item 10000", 0),
            ("9999", 1),
        ]
        for (text, matches) in searches {
            store.binding(\.search).value = text
            #expect(store.todos.isLoading, "the query starts over")
            // A list of an older search never arrives after the newer one starts.
            try await waitUntil(store) { !$0.todos.isLoading }
            let expected = text.isEmpty ? all : all.filter { $0.text.lowercased().contains(text.lowercased()) }
            #expect(expected.count == matches)
            #expect(store.todos.value == expected, "searching \(text)")
        }
        store.send(.todos(.stop))
        try await database.waitUntilObservationsEnd()
    }

    @Test func releasingTheStoreEndsTheLiveQuery() async throws {
        var store: Store<TodoList.State, TodoList.Action>? = makeStore()
        store?.send(.todos(.start))
        try await waitUntil(try #require(store)) { !$0.todos.isLoading }
        // A search restarts the query: the one it replaces ends, the new one follows.
        store?.binding(\.search).value = "water"
        try await waitUntil(try #require(store)) { !$0.todos.isLoading }
        #expect(database.activeObservationCount >= 1)
        weak let released = store
        store = nil
        #expect(released == nil, "no cycle keeps it alive")
        // Its effects were cancelled with it; their end ends the observation
        // (this would wait until the suite's time limit if one outlived it).
        try await database.waitUntilObservationsEnd()
    }
}

/// The list's logic, exhaustively: every state change, every presentation
/// and dismissal of the editor and the confirmation. The writes are real;
/// the list arrives as the test sends it (`.todos(.loaded)`), not from the
/// live query, so each test decides when it does.
@MainActor
@Suite("TodoList: adding, editing and deleting", .timeLimit(.minutes(2)))
struct TodoListEditingTests {
    let database: SQLiteDatabase
    let repository: TodoRepository

    init() async throws {
        (database, repository) = try await makeTodoRepository()
    }

    /// The date of the `n`th item written (`TickingDate`'s `n`th tick).
    func date(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(n)) }

    func makeStore(_ state: TodoList.State = TodoList.State()) -> TestStore<TodoList.State, TodoList.Action> {
        TestStore(initialState: state) { [repository] in TodoList(repository: repository) }
    }

    @Test func submittingTheDraftAddsItSelectsItAndClearsTheField() async throws {
        let store = makeStore(TodoList.State(draft: "富士山に登る"))
        await store.send(.submitDraft)
        let added = Todo(id: 1, text: "富士山に登る", date: date(1))
        await store.receive(.draftAdded(added, text: "富士山に登る")) {
            $0.draft = ""
            $0.selectedID = 1
        }
        await store.finish()
        #expect(try await repository.all() == [added])
    }

    @Test func textTypedWhileTheDraftIsAddedStays() async throws {
        let store = makeStore(TodoList.State(draft: "first"))
        await store.send(.submitDraft)
        await store.send(.binding(.set(\.draft, "second"))) { $0.draft = "second" }
        await store.receive(.draftAdded(Todo(id: 1, text: "first", date: date(1)), text: "first")) {
            $0.selectedID = 1
        }
        await store.finish()
    }

    @Test func aRefusedDraftStaysInTheFieldWithAMessage() async throws {
        let store = makeStore(TodoList.State(draft: "   "))
        await store.send(.submitDraft)
        await store.receive(.failed("A to-do needs some text.")) { $0.errorMessage = "A to-do needs some text." }
        let long = String(repeating: "あ", count: Todo.maximumTextLength + 1)
        await store.send(.binding(.set(\.draft, long))) { $0.draft = long }
        await store.send(.submitDraft) { $0.errorMessage = nil }
        let tooLong = "A to-do holds at most \(Todo.maximumTextLength) characters."
        await store.receive(.failed(tooLong)) { $0.errorMessage = tooLong }
        await store.finish()
        #expect(store.state.draft.count == Todo.maximumTextLength + 1, "nothing typed is lost")
        #expect(try await repository.all().isEmpty)
    }

    @Test func theSelectionMovesAndStopsAtTheEnds() async throws {
        try await repository.add(contentsOf: ["a", "b", "c"])
        let todos = try await repository.all()
        let store = makeStore(TodoList.State(todos: Fetched(todos)))
        await store.send(.moveSelection(by: 1)) { $0.selectedID = todos[0].id }  // from nothing, down selects the first
        await store.send(.moveSelection(by: 10)) { $0.selectedID = todos[2].id }
        await store.send(.moveSelection(by: -10)) { $0.selectedID = todos[0].id }
        await store.send(.binding(.set(\.selectedID, todos[1].id))) { $0.selectedID = todos[1].id }
        #expect(store.state.selectedTodo?.text == "b")
    }

    @Test func editingInPlaceSavesOrKeepsTheTypedText() async throws {
        let item = try await repository.add("first")
        let id = try #require(item.id)
        let store = makeStore(TodoList.State(todos: Fetched([item])))
        await store.send(.editTapped(id: id)) {
            $0.selectedID = id
            $0.editor = TodoEditor.State(id: id, text: "first")
        }
        await store.send(.editor(.presented(.binding(.set(\.text, ""))))) { $0.editor?.text = "" }
        await store.send(.editor(.presented(.saveTapped)))
        await store.receive(.failed("A to-do needs some text.")) {
            $0.errorMessage = "A to-do needs some text."  // a refused edit goes on
        }
        await store.send(.editor(.presented(.binding(.set(\.text, "first, edited"))))) {
            $0.editor?.text = "first, edited"
        }
        await store.send(.editor(.presented(.saveTapped))) { $0.errorMessage = nil }
        await store.receive(.editSaved(id: id, text: "first, edited")) { $0.editor = nil }
        await store.finish()
        #expect(try await repository.all().map(\.text) == ["first, edited"])

        // Esc: dismissed unsaved.
        await store.send(.editTapped(id: id)) { $0.editor = TodoEditor.State(id: id, text: "first") }
        await store.send(.editor(.presented(.binding(.set(\.text, "never saved"))))) { $0.editor?.text = "never saved" }
        await store.send(.editor(.dismiss)) { $0.editor = nil }
        #expect(try await repository.all().map(\.text) == ["first, edited"])
    }

    @Test func textTypedWhileAnEditSavesStaysInTheField() async throws {
        let item = try await repository.add("first")
        let id = try #require(item.id)
        let store = makeStore(
            TodoList.State(todos: Fetched([item]), editor: TodoEditor.State(id: id, text: "first, edited"))
        )
        await store.send(.editor(.presented(.saveTapped)))
        await store.send(.editor(.presented(.binding(.set(\.text, "first, edited twice"))))) {
            $0.editor?.text = "first, edited twice"
        }
        await store.receive(.editSaved(id: id, text: "first, edited"))
        await store.finish()
        #expect(store.state.editor == TodoEditor.State(id: id, text: "first, edited twice"), "editing goes on")
        #expect(try await repository.all().map(\.text) == ["first, edited"])
    }

    @Test func aSaveRunsOnAfterTheEditorIsDismissed() async throws {
        let item = try await repository.add("first")
        let id = try #require(item.id)
        let store = makeStore(
            TodoList.State(todos: Fetched([item]), editor: TodoEditor.State(id: id, text: "saved"))
        )
        // The save waits behind a held write, still running when the editor goes.
        let writer = await HeldWriter(database)
        await store.send(.editor(.presented(.saveTapped)))
        await store.send(.editor(.dismiss)) { $0.editor = nil }  // Esc right after Enter
        try await writer.release()
        await store.receive(.editSaved(id: id, text: "saved"))
        await store.finish()
        #expect(try await repository.all().map(\.text) == ["saved"])
    }

    @Test func anItemDeletedElsewhereWhileEditedClosesTheEditor() async throws {
        let items = [Todo(id: 1, text: "a", date: date(1)), Todo(id: 2, text: "b", date: date(2))]
        let store = makeStore(TodoList.State(todos: Fetched(items), editor: TodoEditor.State(id: 1, text: "a!")))
        await store.send(.todos(.loaded([items[0]]))) { $0.todos.value = [items[0]] }
        await store.send(.todos(.loaded([items[1]]))) {
            $0.todos.value = [items[1]]
            $0.editor = nil
        }
    }

    @Test func deletingWaitsForConfirmationAndSelectsTheNextRow() async throws {
        try await repository.add(contentsOf: ["a", "b", "c"])
        let todos = try await repository.all()
        let b = todos[1]
        let bID = try #require(b.id)
        let store = makeStore(TodoList.State(todos: Fetched(todos), selectedID: bID))
        await store.send(.deleteTapped(id: bID)) { $0.deletion = TodoDeletion.State(todo: b) }
        await store.send(.deletion(.dismiss)) { $0.deletion = nil }  // kept
        #expect(try await repository.all().count == 3)
        await store.send(.deleteTapped(id: bID)) { $0.deletion = TodoDeletion.State(todo: b) }
        await store.send(.deletion(.presented(.confirmTapped))) {
            $0.deletion = nil
            $0.selectedID = todos[2].id
        }
        await store.finish()
        #expect(try await repository.all().map(\.text) == ["a", "c"])
    }

    @Test(arguments: [
        // (items, the one deleted, the one selected before, the one selected after)
        (["a", "b", "c"], 2, 2, 1),  // the last row: the one above takes the selection
        (["a"], 0, 0, nil),  // the only row: nothing is selected
        (["a", "b", "c"], 0, 2, 2),  // another row: the selection stays
    ])
    func deletingMovesTheSelectionAsListsDo(texts: [String], deleted: Int, selected: Int, after: Int?) async throws {
        try await repository.add(contentsOf: texts)
        let todos = try await repository.all()
        let store = makeStore(TodoList.State(todos: Fetched(todos), selectedID: todos[selected].id))
        let doomed = try #require(todos[deleted].id)
        await store.send(.deleteTapped(id: doomed)) { $0.deletion = TodoDeletion.State(todo: todos[deleted]) }
        await store.send(.deletion(.presented(.confirmTapped))) {
            $0.deletion = nil
            $0.selectedID = after.map { todos[$0].id } ?? nil
        }
        await store.finish()
        #expect(try await repository.all().count == texts.count - 1)
    }

    @Test func deletingAnItemAlreadyGoneSaysSo() async throws {
        let gone = Todo(id: 7, text: "gone", date: date(1))
        let store = makeStore(TodoList.State(todos: Fetched([gone])))
        await store.send(.deleteTapped(id: 7)) { $0.deletion = TodoDeletion.State(todo: gone) }
        await store.send(.deletion(.presented(.confirmTapped))) { $0.deletion = nil }
        await store.receive(.failed("There is no to-do #7.")) { $0.errorMessage = "There is no to-do #7." }
        await store.finish()
    }
}

/// The database's writer, held by a write the test keeps open: later writes
/// queue behind it until ``release()``.
struct HeldWriter {
    private let gate = DispatchSemaphore(value: 0)
    private let holder: Task<Void, any Error>

    /// Holds `database`'s writer; returns once the holding write runs.
    init(_ database: SQLiteDatabase) async {
        let gate = self.gate
        let (entered, enteredSink) = AsyncStream.makeStream(of: Void.self)
        holder = Task {
            try await database.write { _ in
                enteredSink.yield()
                gate.wait()  // on GRDB's writer thread, not the cooperative pool
            }
        }
        for await _ in entered { break }
    }

    /// Lets the queued writes run.
    func release() async throws {
        gate.signal()
        try await holder.value
    }
}
