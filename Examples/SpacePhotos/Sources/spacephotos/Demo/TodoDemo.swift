import ArgumentParser
import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import Foundation
import SpacePhotosCore

/// The to-do list: add, edit in place, delete after a confirmation, a
/// refused empty item, and the list following a write made by another actor.
struct TodoDemo {
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        narrator.section("To-do list")
        let url = dataDirectory.appendingPathComponent("todos.sqlite")
        let database = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
        let repository = TodoRepository(database: database)
        let store = Store(initialState: TodoList.State()) { TodoList(repository: repository) }
        let observation = store.send(.observe)
        defer { observation.cancel() }
        try await waitUntil(store) { $0.isLoaded }
        narrator.step("A database in WAL mode at \(url.lastPathComponent); the list's store observes it.")

        for text in ["Look up tonight's sky", "Clean the telescope lens", "Print the Orion photo"] {
            store.binding(\.draft).value = text
            await store.send(.submitDraft).finish()
        }
        try await waitUntil(store) { $0.todos.count == 3 }
        show(store.todos)

        store.send(.editTapped(id: store.todos[1].id ?? 0))
        guard let lens = store.editor?.id,
            let editor = store.scope(state: \.editor, action: \.editor)
        else {
            narrator.result("Unexpected: the item could not be edited")
            throw ExitCode.failure
        }
        editor.binding(\.text).value = "Clean the telescope lens (and the finder)"
        await editor.send(.saveTapped).finish()
        try await waitUntil(store) { $0.todos[1].text.hasSuffix("(and the finder)") }
        narrator.result("Edited #\(lens) in place: same id, same position; the editor closed once saved.")

        store.binding(\.draft).value = "   "
        await store.send(.submitDraft).finish()
        narrator.result("An empty item is refused: \"\(store.errorMessage ?? "")\"")

        _ = try await Task.detached { try await repository.add("Added by a background actor") }.value
        try await waitUntil(store) { $0.todos.count == 4 }
        narrator.result("A write from another actor appears in the list once committed.")

        if let first = store.todos.first?.id {
            store.send(.deleteTapped(id: first))
            await store.send(.deletion(.presented(.confirmTapped))).finish()
        }
        try await waitUntil(store) { $0.todos.count == 3 }
        show(store.todos)
        observation.cancel()
        try await database.close()
    }

    @MainActor
    private func show(_ todos: [Todo]) {
        for todo in todos {
            narrator.step("#\(todo.id ?? 0)  \(todo.text)")
        }
    }
}
