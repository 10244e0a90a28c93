import BaselineConcurrency
import BaselinePersistence
import Foundation
import Observation

/// The to-do list screen: the list, the selection, the new item's text,
/// the item being edited, the deletion waiting for confirmation, and the
/// actions on them.
///
/// The list comes from the database's observation, not from the actions: add
/// an item here, or from any other actor or screen, and ``todos`` follows once
/// the write commits. The observation lives exactly as long as the view model
/// (it stops when the view model is released).
///
/// Typed text is never lost: ``draft`` and ``editText`` are cleared only
/// when their save succeeded; a refused or failed save leaves them as they
/// were, with ``errorMessage`` set.
///
/// ```swift
/// List(model.todos, selection: $model.selectedID) { Text($0.text) }
/// TextField("New to-do", text: $model.draft)
///     .onSubmit { Task { await model.submitDraft() } }
/// .confirmationDialog("Delete?", isPresented: .constant(model.pendingDeletion != nil)) {
///     Button("Delete", role: .destructive) { Task { await model.confirmDeletion() } }
/// }
/// ```
@MainActor
@Observable
public final class TodoListViewModel {
    /// Every item, oldest first.
    public private(set) var todos: [Todo] = []
    /// Whether the first result has arrived.
    public private(set) var isLoaded = false
    /// The selected item's id (``selectedTodo`` is nil while it is not listed).
    public var selectedID: Int64?
    /// What to tell the user about the last refused action; `nil` otherwise.
    public private(set) var errorMessage: String?
    /// The text of the item about to be added.
    public var draft = ""
    /// The item being edited in place, if one is.
    public private(set) var editingID: Int64?
    /// The edited item's text while it is edited.
    public var editText = ""
    /// The item whose deletion waits for the user's confirmation.
    public private(set) var pendingDeletion: Todo?

    @ObservationIgnored private let repository: TodoRepository
    @ObservationIgnored private var observer: StreamObserver?

    /// A list over `repository`; it starts observing the items at once.
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

    /// The selected item's position in ``todos``.
    public var selectedIndex: Int? {
        guard let selectedID else { return nil }
        return todos.firstIndex { $0.id == selectedID }
    }

    /// Moves the selection by `offset` rows (negative is up), stopping at
    /// the ends. With nothing selected, moving down starts above the first
    /// item and moving up below the last (so Down selects the first, End
    /// the last).
    public func moveSelection(by offset: Int) {
        guard let index = ListSelection.index(movingFrom: selectedIndex, by: offset, count: todos.count) else { return }
        selectedID = todos[index].id
    }

    /// Adds ``draft`` as a new item and selects it; the draft is cleared
    /// only when the item was added.
    @discardableResult
    public func submitDraft() async -> Bool {
        let text = draft
        return await perform {
            let todo = try await repository.add(text)
            // Cleared only if unchanged meanwhile: typing goes on during the write.
            if draft == text { draft = "" }
            selectedID = todo.id
        }
    }

    /// Starts editing an item in place, with its text to change.
    public func beginEditing(id: Int64) {
        guard let todo = todos.first(where: { $0.id == id }) else { return }
        selectedID = id
        editingID = id
        editText = todo.text
        errorMessage = nil
    }

    /// Saves ``editText`` into the item being edited, and stops editing;
    /// when the save fails, editing goes on with the text as typed. Text
    /// typed while the save runs is not lost either: editing then goes on
    /// with it, to be saved again.
    @discardableResult
    public func commitEditing() async -> Bool {
        guard let editingID else { return false }
        let text = editText
        return await perform {
            _ = try await repository.edit(id: editingID, text: text)
            if self.editingID == editingID, editText == text {
                self.editingID = nil
                editText = ""
            }
        }
    }

    /// Stops editing without saving.
    public func cancelEditing() {
        editingID = nil
        editText = ""
    }

    /// Asks for confirmation before deleting an item.
    public func requestDeletion(id: Int64) {
        pendingDeletion = todos.first { $0.id == id }
    }

    /// Deletes the item waiting for confirmation.
    @discardableResult
    public func confirmDeletion() async -> Bool {
        guard let todo = pendingDeletion, let id = todo.id else { return false }
        pendingDeletion = nil
        // The row below takes the selection, as lists do.
        if selectedID == id, let index = selectedIndex {
            let neighbour = index + 1 < todos.count ? index + 1 : index - 1
            selectedID = neighbour >= 0 ? todos[neighbour].id : nil
        }
        return await delete(id: id)
    }

    /// Keeps the item: no deletion.
    public func cancelDeletion() {
        pendingDeletion = nil
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
        // The selection is kept even when this list lacks it: an item just
        // added is selected before the list that holds it arrives (ids are
        // never reused, so a deleted item's id selects nothing).
        if let editingID, !todos.contains(where: { $0.id == editingID }) {
            // Deleted elsewhere while edited: nothing left to save into.
            cancelEditing()
        }
    }

    private func report(_ error: any Error) {
        switch error {
        case let error as TodoError: errorMessage = error.description
        case is CancellationError: break
        default: errorMessage = ErrorMessage.line("The to-do list could not be saved", error)
        }
    }
}
