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
        await waitUntil(model) { $0.isLoaded }
        #expect(await model.add("Water the plants"))
        await waitUntil(model) { $0.todos.count == 1 }
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
        let repository = self.repository
        _ = try await Task.detached { try await repository.add("Written elsewhere") }.value
        await waitUntil(model) { $0.todos.map(\.text) == ["Written elsewhere"] }
    }

    @Test func editingTheSelectionKeepsItsIdentityAndPlace() async throws {
        try await repository.add("first")
        try await repository.add("second")
        let model = TodoListViewModel(repository: repository)
        await waitUntil(model) { $0.todos.count == 2 }
        let first = model.todos[0]
        model.select(first.id)
        #expect(await model.editSelected(text: "first, edited"))
        await waitUntil(model) { $0.todos.first?.text == "first, edited" }
        #expect(model.todos[0].id == first.id)
        #expect(model.selectedTodo?.text == "first, edited")
    }

    @Test func deletingTheSelectionClearsIt() async throws {
        let item = try await repository.add("doomed")
        let model = TodoListViewModel(repository: repository)
        await waitUntil(model) { $0.todos.count == 1 }
        model.select(item.id)
        #expect(await model.delete(id: try #require(item.id)))
        #expect(model.selectedID == nil)
        await waitUntil(model) { $0.todos.isEmpty }
    }

    @Test func itStaysUsableWithTenThousandItems() async throws {
        try await repository.add(contentsOf: (0..<10_000).map { "item \($0)" })
        let model = TodoListViewModel(repository: repository)
        await waitUntil(model) { $0.todos.count == 10_000 }
        #expect(await model.add("one more"))
        await waitUntil(model) { $0.todos.count == 10_001 }
        #expect(model.todos.last?.text == "one more")
    }

    @Test func releasingTheViewModelReleasesItAndItsObserver() async throws {
        var model: TodoListViewModel? = TodoListViewModel(repository: repository)
        await waitUntil(try #require(model)) { $0.isLoaded }
        #expect(database.activeObservationCount == 1)
        weak let released = model
        model = nil
        // No cycle keeps it alive: its StreamObserver goes with it, and a
        // released StreamObserver stops (StreamObserverTests), which ends the
        // database observation (DatabaseObservationTests).
        #expect(released == nil)
    }
}
