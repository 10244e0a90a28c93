import ArgumentParser
import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import Foundation
import SpacePhotosCore

/// The to-do list: add, edit in place, delete after a confirmation, a
/// refused empty item, the list following a write made by another actor,
/// and a search narrowing it.
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
        store.send(.todos(.start))  // the list's `.task`
        try await waitUntil(store) { !$0.todos.isLoading }
        narrator.step("A database in WAL mode at \(url.lastPathComponent); the list's store follows it (a live query).")

        for text in ["Look up tonight's sky", "Clean the telescope lens", "Print the Orion photo"] {
            store.binding(\.draft).value = text
            await store.send(.submitDraft).finish()
        }
        try await waitUntil(store) { $0.todos.value.count == 3 }
        show(store.todos.value)

        store.send(.editTapped(id: store.todos.value[1].id ?? 0))
        guard let lens = store.editor?.id,
            let editor = store.scope(state: \.editor, action: \.editor)
        else {
            narrator.result("Unexpected: the item could not be edited")
            throw ExitCode.failure
        }
        editor.binding(\.text).value = "Clean the telescope lens (and the finder)"
        await editor.send(.saveTapped).finish()
        try await waitUntil(store) { $0.todos.value[1].text.hasSuffix("(and the finder)") }
        narrator.result("Edited #\(lens) in place: same id, same position; the editor closed once saved.")

        store.binding(\.draft).value = "   "
        await store.send(.submitDraft).finish()
        narrator.result("An empty item is refused: \"\(store.errorMessage ?? "")\"")

        _ = try await Task.detached { try await repository.add("Added by a background actor") }.value
        try await waitUntil(store) { $0.todos.value.count == 4 }
        narrator.result("A write from another actor appears in the list once committed.")

        store.binding(\.search).value = "TELESCOPE"
        try await waitUntil(store) { !$0.todos.isLoading }
        narrator.result("Searching \"TELESCOPE\" (case ignored) lists \(store.todos.value.count): the query ran again.")
        show(store.todos.value)
        store.binding(\.search).value = ""
        try await waitUntil(store) { !$0.todos.isLoading }

        if let first = store.todos.value.first?.id {
            store.send(.deleteTapped(id: first))
            await store.send(.deletion(.presented(.confirmTapped))).finish()
        }
        try await waitUntil(store) { $0.todos.value.count == 3 }
        show(store.todos.value)
        store.send(.todos(.stop))
        try await database.waitUntilObservationsEnd()
        try await database.close()
    }

    @MainActor
    private func show(_ todos: [Todo]) {
        for todo in todos {
            narrator.step("#\(todo.id ?? 0)  \(todo.text)")
        }
    }
}
