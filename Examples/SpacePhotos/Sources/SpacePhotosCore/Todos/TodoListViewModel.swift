import BaselineConcurrency
import BaselinePersistence
import Foundation
import Observation

/// The to-do list screen: the list, the selection, and the actions on them.
///
/// The list comes from the database's observation, not from the actions: add
/// an item here, or from any other actor or screen, and ``todos`` follows once
/// the write commits. The observation lives exactly as long as the view model
/// (it stops when the view model is released).
///
/// ```swift
/// List(model.todos, selection: $model.selectedID) { Text($0.text) }
///     .onSubmit { Task { await model.add(draft) } }
/// ```
@MainActor
@Observable
public final class TodoListViewModel {
    /// Every item, oldest first.
    public private(set) var todos: [Todo] = []
    /// Whether the first result has arrived.
    public private(set) var isLoaded = false
    /// The selected item's id.
    public var selectedID: Int64?
    /// What to tell the user about the last refused action; `nil` otherwise.
    public private(set) var errorMessage: String?

    @ObservationIgnored private let repository: TodoRepository
    @ObservationIgnored private var observer: StreamObserver?

    public init(repository: TodoRepository) {
        self.repository = repository
        let observer = StreamObserver(observing: { repository.observeAll() }) { [weak self] todos in
            await self?.show(todos)
        } onError: { [weak self] error in
            await self?.report(error)
        }
        self.observer = observer
        observer.start()
    }

    /// The selected item, if it still exists.
    public var selectedTodo: Todo? {
        guard let selectedID else { return nil }
        return todos.first { $0.id == selectedID }
    }

    /// Selects an item (or nothing).
    public func select(_ id: Int64?) {
        selectedID = id
    }

    /// Adds an item; `false`, with ``errorMessage`` set, when it was refused.
    @discardableResult
    public func add(_ text: String) async -> Bool {
        await perform { _ = try await repository.add(text) }
    }

    /// Changes the selected item's text in place.
    @discardableResult
    public func editSelected(text: String) async -> Bool {
        guard let selectedID else { return false }
        return await perform { _ = try await repository.edit(id: selectedID, text: text) }
    }

    /// Deletes an item; clears the selection if it was selected.
    @discardableResult
    public func delete(id: Int64) async -> Bool {
        await perform {
            try await repository.delete(id: id)
            if selectedID == id { selectedID = nil }
        }
    }

    private func perform(_ action: () async throws -> Void) async -> Bool {
        errorMessage = nil
        do {
            try await action()
            return true
        } catch {
            report(error)
            return false
        }
    }

    private func show(_ todos: [Todo]) {
        self.todos = todos
        isLoaded = true
        if let selectedID, !todos.contains(where: { $0.id == selectedID }) {
            self.selectedID = nil
        }
    }

    private func report(_ error: any Error) {
        switch error {
        case let error as TodoError: errorMessage = error.description
        case is CancellationError: break
        default: errorMessage = "The to-do list could not be saved: \(error)"
        }
    }
}
