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

/// The list against a real (in-memory) SQLite database: its observation,
/// and the store's lifetime.
@MainActor
@Suite("TodoList: the observed list", .timeLimit(.minutes(1)))
struct TodoListTests {
    let database: SQLiteDatabase
    let repository: TodoRepository

    init() async throws {
        (database, repository) = try await makeTodoRepository()
    }

    func makeStore() -> Store<TodoList.State, TodoList.Action> {
        Store(initialState: TodoList.State()) { [repository] in TodoList(repository: repository) }
    }

    @Test func addingShowsTheItemOnceCommitted() async throws {
        let store = makeStore()
        let observation = store.send(.observe)
        defer { observation.cancel() }
        try await waitUntil(store) { $0.isLoaded }
        store.binding(\.draft).value = "Water the plants"
        await store.send(.submitDraft).finish()
        try await waitUntil(store) { $0.todos.count == 1 }
        #expect(store.todos.map(\.text) == ["Water the plants"])
        #expect(store.selectedTodo?.text == "Water the plants")
        #expect(store.errorMessage == nil)
    }

    @Test func theListFollowsWritesFromAnotherActor() async throws {
        let store = makeStore()
        let observation = store.send(.observe)
        defer { observation.cancel() }
        try await waitUntil(store) { $0.isLoaded }
        #expect(store.todos.isEmpty)
        let repository = self.repository
        _ = try await Task.detached { try await repository.add("Written elsewhere") }.value
        // Nothing on this side asked for it: the observation brought it.
        try await waitUntil(store) { !$0.todos.isEmpty }
        #expect(store.todos.map(\.text) == ["Written elsewhere"])
    }

    @Test func itStaysUsableWithTenThousandItems() async throws {
        try await repository.add(contentsOf: (0..<10_000).map { "item \($0)" })
        let store = makeStore()
        let observation = store.send(.observe)
        defer { observation.cancel() }
        try await waitUntil(store) { $0.todos.count == 10_000 }
        store.binding(\.draft).value = "one more"
        await store.send(.submitDraft).finish()
        try await waitUntil(store) { $0.todos.count == 10_001 }
        #expect(store.todos.last?.text == "one more")
    }

    @Test func twoObserversEachKeepTheirs() async throws {
        let store = makeStore()
        let first = store.send(.observe)
        let second = store.send(.observe)
        defer { first.cancel() }
        try await waitUntil(store) { $0.isLoaded }
        second.cancel()  // the first, started before it, goes on
        store.binding(\.draft).value = "after the second stopped"
        await store.send(.submitDraft).finish()
        try await waitUntil(store) { $0.todos.count == 1 }
    }

    @Test func cancellingTheObservationEndsIt() async throws {
        let store = makeStore()
        let observation = store.send(.observe)
        try await waitUntil(store) { $0.isLoaded }
        #expect(database.activeObservationCount == 1)
        observation.cancel()
        try await database.waitUntilObservationsEnd()
    }

    @Test func releasingTheStoreEndsTheObservation() async throws {
        var store: Store<TodoList.State, TodoList.Action>? = makeStore()
        store?.send(.observe)
        try await waitUntil(try #require(store)) { $0.isLoaded }
        #expect(database.activeObservationCount == 1)
        weak let released = store
        store = nil
        #expect(released == nil, "no cycle keeps it alive")
        // Its effects were cancelled with it; their end ends the observation.
        try await database.waitUntilObservationsEnd()
    }
}

/// The list's logic, exhaustively: every state change, every presentation
/// and dismissal of the editor and the confirmation. The writes are real;
/// the list arrives as the test sends it (`todosChanged`), not from the
/// observation, so each test decides when it does.
@MainActor
@Suite("TodoList: adding, editing and deleting", .timeLimit(.minutes(1)))
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
        let store = makeStore(TodoList.State(todos: todos, isLoaded: true))
        await store.send(.moveSelection(by: 1)) { $0.selectedID = todos[0].id }  // from nothing, down selects the first
        await store.send(.moveSelection(by: 10)) { $0.selectedID = todos[2].id }
        await store.send(.moveSelection(by: -10)) { $0.selectedID = todos[0].id }
        await store.send(.binding(.set(\.selectedID, todos[1].id))) { $0.selectedID = todos[1].id }
        #expect(store.state.selectedTodo?.text == "b")
    }

    @Test func editingInPlaceSavesOrKeepsTheTypedText() async throws {
        let item = try await repository.add("first")
        let id = try #require(item.id)
        let store = makeStore(TodoList.State(todos: [item], isLoaded: true))
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
            TodoList.State(todos: [item], isLoaded: true, editor: TodoEditor.State(id: id, text: "first, edited"))
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
            TodoList.State(todos: [item], isLoaded: true, editor: TodoEditor.State(id: id, text: "saved"))
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
        let store = makeStore(TodoList.State(todos: items, isLoaded: true, editor: TodoEditor.State(id: 1, text: "a!")))
        await store.send(.todosChanged([items[0]])) { $0.todos = [items[0]] }
        await store.send(.todosChanged([items[1]])) {
            $0.todos = [items[1]]
            $0.editor = nil
        }
    }

    @Test func deletingWaitsForConfirmationAndSelectsTheNextRow() async throws {
        try await repository.add(contentsOf: ["a", "b", "c"])
        let todos = try await repository.all()
        let b = todos[1]
        let bID = try #require(b.id)
        let store = makeStore(TodoList.State(todos: todos, isLoaded: true, selectedID: bID))
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
        let store = makeStore(TodoList.State(todos: todos, isLoaded: true, selectedID: todos[selected].id))
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
        let store = makeStore(TodoList.State(todos: [gone], isLoaded: true))
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
