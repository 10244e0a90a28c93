import BaselineConcurrency
import BaselinePersistence
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("TodoListViewModel", .timeLimit(.minutes(1)))
struct TodoListViewModelTests {
    let database: SQLiteDatabase
    let repository: TodoRepository

    init() async throws {
        database = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let clock = TickingDate()
        repository = TodoRepository(database: database, now: { clock.next() })
    }

    @Test func addingShowsTheItemOnceCommitted() async throws {
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.isLoaded }
        #expect(await model.add("Water the plants"))
        try await waitUntil(model) { $0.todos.count == 1 }
        #expect(model.todos.map(\.text) == ["Water the plants"])
        #expect(model.errorMessage == nil)
    }

    @Test func emptyTextIsRefusedWithAMessage() async throws {
        let model = TodoListViewModel(repository: repository)
        #expect(await model.add("   ") == false)
        #expect(model.errorMessage == "A to-do needs some text.")
        #expect(try await repository.all().isEmpty)
    }

    @Test func theListFollowsWritesFromAnotherActor() async throws {
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.isLoaded }
        #expect(model.todos.isEmpty)
        let repository = self.repository
        _ = try await Task.detached { try await repository.add("Written elsewhere") }.value
        // Nothing on this side asked for it: the observation brought it.
        try await waitUntil(model) { !$0.todos.isEmpty }
        #expect(model.todos.map(\.text) == ["Written elsewhere"])
    }

    @Test func editingTheSelectionKeepsItsIdentityAndPlace() async throws {
        try await repository.add("first")
        try await repository.add("second")
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 2 }
        let first = model.todos[0]
        model.select(first.id)
        #expect(await model.editSelected(text: "first, edited"))
        try await waitUntil(model) { $0.todos.first?.text == "first, edited" }
        #expect(model.todos[0].id == first.id)
        #expect(model.selectedTodo?.text == "first, edited")
    }

    @Test func deletingTheSelectionClearsIt() async throws {
        let item = try await repository.add("doomed")
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 1 }
        model.select(item.id)
        #expect(await model.delete(id: try #require(item.id)))
        #expect(model.selectedID == nil)
        try await waitUntil(model) { $0.todos.isEmpty }
    }

    @Test func itStaysUsableWithTenThousandItems() async throws {
        try await repository.add(contentsOf: (0..<10_000).map { "item \($0)" })
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 10_000 }
        #expect(await model.add("one more"))
        try await waitUntil(model) { $0.todos.count == 10_001 }
        #expect(model.todos.last?.text == "one more")
    }

    @Test func releasingTheViewModelReleasesItAndItsObserver() async throws {
        var model: TodoListViewModel? = TodoListViewModel(repository: repository)
        try await waitUntil(try #require(model)) { $0.isLoaded }
        #expect(database.activeObservationCount == 1)
        weak let released = model
        model = nil
        // No cycle keeps it alive.
        #expect(released == nil)
        // Its StreamObserver went with it and cancelled its task, whose end
        // ends the database observation.
        try await database.waitUntilObservationsEnd()
    }
}

@MainActor
@Suite("TodoListViewModel editing", .timeLimit(.minutes(1)))
struct TodoEditingTests {
    let repository: TodoRepository

    init() async throws {
        let database = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let clock = TickingDate()
        repository = TodoRepository(database: database, now: { clock.next() })
    }

    @Test func submittingTheDraftAddsItSelectsItAndClearsTheField() async throws {
        let model = TodoListViewModel(repository: repository)
        model.draft = "富士山に登る"
        #expect(await model.submitDraft())
        #expect(model.draft.isEmpty)
        try await waitUntil(model) { $0.todos.count == 1 }
        #expect(model.selectedTodo?.text == "富士山に登る")
    }

    @Test func aRefusedDraftStaysInTheField() async throws {
        let model = TodoListViewModel(repository: repository)
        model.draft = "   "
        #expect(await model.submitDraft() == false)
        #expect(model.draft == "   ")
        #expect(model.errorMessage == "A to-do needs some text.")
        model.draft = String(repeating: "あ", count: Todo.maximumTextLength + 1)
        #expect(await model.submitDraft() == false)
        #expect(model.draft.count == Todo.maximumTextLength + 1, "nothing typed is lost")
        #expect(model.errorMessage == "A to-do holds at most \(Todo.maximumTextLength) characters.")
        #expect(try await repository.all().isEmpty)
    }

    @Test func editingInPlaceSavesOrKeepsTheTypedText() async throws {
        let item = try await repository.add("first")
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 1 }
        let id = try #require(item.id)
        model.beginEditing(id: id)
        #expect(model.editingID == id)
        #expect(model.editText == "first")
        model.editText = ""
        #expect(await model.commitEditing() == false)
        #expect(model.editingID == id, "a refused edit goes on")
        model.editText = "first, edited"
        #expect(await model.commitEditing())
        #expect(model.editingID == nil)
        try await waitUntil(model) { $0.todos.first?.text == "first, edited" }
        model.beginEditing(id: id)
        model.editText = "never saved"
        model.cancelEditing()
        #expect(model.editingID == nil)
        #expect(try await repository.all().map(\.text) == ["first, edited"])
    }

    @Test func textTypedWhileAnEditSavesStaysInTheField() async throws {
        let database = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let repository = TodoRepository(database: database)
        let item = try await repository.add("first")
        let id = try #require(item.id)
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 1 }
        model.beginEditing(id: id)
        model.editText = "first, edited"
        // A refused add leaves a message; the save clears it as it starts.
        #expect(await model.add("   ") == false)
        #expect(model.errorMessage != nil)

        // Writes queue behind one the test holds open.
        let gate = DispatchSemaphore(value: 0)
        let (entered, enteredSink) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await database.write { _ in
                enteredSink.yield()
                gate.wait()  // on GRDB's writer thread, not the cooperative pool
            }
        }
        for await _ in entered { break }
        let saving = Task { await model.commitEditing() }
        try await waitUntil(model) { $0.errorMessage == nil }  // the save has taken its text
        model.editText += " twice"
        gate.signal()
        _ = try await holder.value

        #expect(await saving.value)
        #expect(try await repository.all().map(\.text) == ["first, edited"])
        #expect(model.editingID == id, "editing goes on with what was typed meanwhile")
        #expect(model.editText == "first, edited twice")
    }

    @Test func deletingWaitsForConfirmationAndSelectsTheNextRow() async throws {
        try await repository.add(contentsOf: ["a", "b", "c"])
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.todos.count == 3 }
        model.moveSelection(by: 1)
        #expect(model.selectedTodo?.text == "a", "from no selection, down selects the first")
        model.moveSelection(by: 1)
        let b = try #require(model.selectedTodo)
        model.requestDeletion(id: try #require(b.id))
        #expect(model.pendingDeletion == b)
        model.cancelDeletion()
        #expect(model.pendingDeletion == nil)
        #expect(try await repository.all().count == 3)
        model.requestDeletion(id: try #require(b.id))
        #expect(await model.confirmDeletion())
        try await waitUntil(model) { $0.todos.count == 2 }
        #expect(model.selectedTodo?.text == "c")
        model.moveSelection(by: -10)
        #expect(model.selectedTodo?.text == "a", "stops at the top")
    }
}
