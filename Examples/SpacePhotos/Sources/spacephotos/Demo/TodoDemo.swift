import BaselineConcurrency
import BaselinePersistence
import Foundation
import SpacePhotosCore

/// Seed 001's to-do list: add, edit in place, delete, a refused empty item,
/// and the list following a write made by another actor.
struct TodoDemo {
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        narrator.section("To-do list (seed 001)")
        let url = dataDirectory.appendingPathComponent("todos.sqlite")
        let database = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
        let repository = TodoRepository(database: database)
        let model = TodoListViewModel(repository: repository)
        try await waitUntil(model) { $0.isLoaded }
        narrator.step("A database in WAL mode at \(url.lastPathComponent); the list model observes it.")

        for text in ["Look up tonight's sky", "Clean the telescope lens", "Print the Orion photo"] {
            await model.add(text)
        }
        try await waitUntil(model) { $0.todos.count == 3 }
        show(model)

        let lens = model.todos[1]
        model.select(lens.id)
        await model.editSelected(text: "Clean the telescope lens (and the finder)")
        try await waitUntil(model) { $0.todos[1].text.hasSuffix("(and the finder)") }
        narrator.result("Edited #\(lens.id ?? 0) in place: same id, same position.")

        await model.add("   ")
        narrator.result("An empty item is refused: \"\(model.errorMessage ?? "")\"")

        _ = try await Task.detached { try await repository.add("Added by a background actor") }.value
        try await waitUntil(model) { $0.todos.count == 4 }
        narrator.result("A write from another actor appears in the list once committed.")

        if let first = model.todos.first?.id { await model.delete(id: first) }
        try await waitUntil(model) { $0.todos.count == 3 }
        show(model)
        try await database.close()
    }

    @MainActor
    private func show(_ model: TodoListViewModel) {
        for todo in model.todos {
            narrator.step("#\(todo.id ?? 0)  \(todo.text)")
        }
    }
}
