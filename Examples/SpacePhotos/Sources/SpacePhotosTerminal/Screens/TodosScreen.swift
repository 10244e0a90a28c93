import BaselineStore
import Foundation
import SpacePhotosCore
import TerminalUI

/// The to-do list: the live list, a search that narrows it, adding,
/// editing in place, and deleting after a confirmation. Only the rows that
/// show are drawn, so 10,000 items scroll as fast as ten.
///
/// `/` focuses the search; typing narrows the list as it goes (the box's
/// title counts the matches); Enter goes back to the narrowed list, Esc
/// clears the search (in the list too, while one is in force).
@MainActor
struct TodosScreen: Screen {
    let store: Store<TodoList.State, TodoList.Action>
    let ui: InterfaceState
    let actions: ActionTasks

    /// Where the fields' text starts, after their labels ("Find:", "New:").
    private static let fieldOffset = 6

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let model = store.state
        let todos = model.todos.value
        let count = model.search.isEmpty ? "To-dos (\(todos.count))" : "To-dos (\(todos.count) matching)"
        // The sync's state beside the count: "To-dos (3) · synced, live".
        let title = model.sync.status == nil ? count : "\(count) · \(model.sync.line)"
        frame.buffer.drawBox(rect, title: title)
        let inner = rect.inset(top: 1, left: 2, bottom: 1, right: 2)
        guard inner.height > 5 else { return }
        drawSearch(model, into: &frame, row: Rect(x: inner.x, y: inner.y, width: inner.width, height: 1), tick: tick)
        let listRect = Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 4)
        if todos.isEmpty {
            if model.todos.isLoading {
                let spinner = frame.spinner(at: tick)
                let reading = model.search.isEmpty ? "Reading the list…" : "Searching…"
                frame.buffer.write("\(spinner) \(reading)", at: listRect.x, listRect.y, style: Theme.secondary)
            } else if model.todos.loadError != nil {
                frame.buffer.write("The list could not be read.", at: listRect.x, listRect.y, style: Theme.error)
            } else if !model.search.isEmpty {
                frame.buffer.write(
                    "No to-do contains “\(model.search)”.",
                    at: listRect.x,
                    listRect.y,
                    style: Theme.secondary,
                    maxWidth: listRect.width
                )
            } else {
                frame.buffer.write(
                    "Nothing to do. Press a to add a to-do.",
                    at: listRect.x,
                    listRect.y,
                    style: Theme.secondary
                )
            }
        }
        let selected = model.selectedIndex
        let numberWidth = String(todos.last?.id ?? 0).count + 1
        for (line, index) in ui.visibleRows(of: .todos, count: todos.count, selected: selected, height: listRect.height)
            .enumerated()
        {
            let todo = todos[index]
            let row = listRect.row(line)
            let number = "#" + String(todo.id ?? 0)
            let label = number.padding(toLength: numberWidth + 1, withPad: " ", startingAt: 0)
            if let editor = model.editor, todo.id == editor.id {
                frame.buffer.write(label, at: row.x, row.y, style: Theme.accent)
                TextFieldView(
                    text: editor.text,
                    cursor: ui.cursor(.todoEdit, in: editor.text),
                    isFocused: true,
                    style: Theme.field
                ).draw(in: row.inset(left: numberWidth + 2), on: &frame.buffer)
            } else {
                frame.buffer.drawRow(
                    label + " " + todo.text,
                    in: row,
                    selected: index == selected && ui.todoFocus != .draft
                )
            }
        }
        let draftRow = inner.maxY - 1
        frame.buffer.write("New:", at: inner.x, draftRow, style: ui.todoFocus == .draft ? Theme.title : Theme.secondary)
        TextFieldView(
            text: model.draft,
            cursor: ui.cursor(.todoDraft, in: model.draft),
            isFocused: ui.todoFocus == .draft && model.editor == nil,
            placeholder: "press a to add a to-do",
            style: Theme.field
        ).draw(
            in: Rect(x: inner.x + Self.fieldOffset, y: draftRow, width: inner.width - Self.fieldOffset, height: 1),
            on: &frame.buffer
        )

        if let deletion = model.deletion {
            drawDeletionDialog(for: deletion.todo, into: &frame, over: rect)
        }
    }

    /// The search field on `row`; at its right, a spinner while a list is
    /// on its way, or how to change a search in force.
    private func drawSearch(_ model: TodoList.State, into frame: inout Frame, row: Rect, tick: Int) {
        let isFocused = ui.todoFocus == .search && model.editor == nil
        frame.buffer.write("Find:", at: row.x, row.y, style: isFocused ? Theme.title : Theme.secondary)
        var note = ""
        if model.todos.isLoading, !model.todos.value.isEmpty {
            note = String(frame.spinner(at: tick))
        } else if !isFocused, !model.search.isEmpty {
            note = "/ change · Esc clear"
        }
        let noteWidth = note.isEmpty ? 0 : TextWidth.of(note) + 1
        TextFieldView(
            text: model.search,
            cursor: ui.cursor(.todoSearch, in: model.search),
            isFocused: isFocused,
            placeholder: "press / to search",
            style: Theme.field
        ).draw(
            in: Rect(x: row.x + Self.fieldOffset, y: row.y, width: row.width - Self.fieldOffset - noteWidth, height: 1),
            on: &frame.buffer
        )
        if !note.isEmpty {
            frame.buffer.write(note, at: row.maxX - noteWidth + 1, row.y, style: Theme.secondary)
        }
    }

    private func drawDeletionDialog(for todo: Todo, into frame: inout Frame, over rect: Rect) {
        let dialog = rect.centered(width: min(56, rect.width - 4), height: 6)
        frame.buffer.fill(dialog)
        frame.buffer.drawBox(dialog, title: "Delete this to-do?", style: Theme.notice, titleStyle: Theme.notice)
        frame.buffer.write(todo.text, at: dialog.x + 2, dialog.y + 2, maxWidth: dialog.width - 4)
        frame.buffer.drawHints(
            [KeyHint("y", "delete"), KeyHint("n Esc", "keep")],
            at: dialog.x + 1,
            row: dialog.y + 4,
            width: dialog.width - 2
        )
    }

    var hints: [KeyHint] {
        let model = store.state
        if model.deletion != nil {
            return [KeyHint("y", "delete"), KeyHint("n Esc", "keep")]
        }
        if model.editor != nil {
            return [KeyHint("Enter", "save"), KeyHint("Esc", "cancel"), KeyHint("← →", "move")]
        }
        if ui.todoFocus == .draft {
            return [KeyHint("Enter", "add"), KeyHint("Esc", "back to the list")]
        }
        if ui.todoFocus == .search {
            return [KeyHint("↑↓", "select"), KeyHint("Enter", "back to the list"), KeyHint("Esc", "clear the search")]
        }
        return [.listSelection, KeyHint("a", "add"), KeyHint("Enter e", "edit"), KeyHint("d", "delete")]
    }

    /// Whether keys go to a text field (global keys such as `q` must not act).
    var isTyping: Bool {
        let model = store.state
        return model.editor != nil || ui.todoFocus != .list || model.deletion != nil
    }

    var statusMessage: String? { store.errorMessage }

    /// While a field or the question has the keys, every key is theirs.
    func handle(_ event: InputEvent) -> InputResult {
        let model = store.state
        if model.deletion != nil, let deletion = store.scope(state: \.deletion, action: \.deletion) {
            guard case let .key(press) = event else { return .handled }
            switch press.key {
            case .character("y"):
                actions.start(onQuit: .finish) { await deletion.send(.confirmTapped).finish() }
            case .character("n"), .escape: store.send(.deletion(.dismiss))
            default: break
            }
            return .handled
        }
        if model.editor != nil, let editor = store.scope(state: \.editor, action: \.editor) {
            switch event {
            case .key(KeyPress(.enter)):
                actions.start(onQuit: .finish) { await editor.send(.saveTapped).finish() }
            case .key(KeyPress(.escape)):
                store.send(.editor(.dismiss))
            default:
                ui.edit(event, editor.binding(\.text), field: .todoEdit, limit: Todo.maximumTextLength)
            }
            return .handled
        }
        if ui.todoFocus == .draft {
            switch event {
            case .key(KeyPress(.enter)):
                actions.start(onQuit: .finish) { [store] in await store.send(.submitDraft).finish() }
            case .key(KeyPress(.escape)):
                ui.todoFocus = .list
            default:
                ui.edit(event, store.binding(\.draft), field: .todoDraft, limit: Todo.maximumTextLength)
            }
            return .handled
        }
        if ui.todoFocus == .search {
            switch event {
            case .key(KeyPress(.enter)):
                ui.todoFocus = .list
            case .key(KeyPress(.escape)):
                clearSearch()
                ui.todoFocus = .list
            case let .key(press) where [.up, .down, .pageUp, .pageDown].contains(press.key):
                // Arrows move in the narrowed list; letters (j, k, g) type.
                if let offset = press.selectionOffset(pageSize: ui.pageSize(of: .todos)) {
                    store.send(.moveSelection(by: offset))
                }
            default:
                ui.edit(event, store.binding(\.search), field: .todoSearch, limit: Todo.maximumTextLength)
            }
            return .handled
        }
        guard case let .key(press) = event else { return .ignored }
        if let offset = press.selectionOffset(pageSize: ui.pageSize(of: .todos)) {
            store.send(.moveSelection(by: offset))
            return .handled
        }
        switch press.key {
        case .character("a"):
            ui.todoFocus = .draft
        case .character("/"):
            ui.todoFocus = .search
        case .escape where !model.search.isEmpty:
            clearSearch()
        case .enter, .character("e"):
            if let id = model.selectedTodo?.id {
                store.send(.editTapped(id: id))
                ui.cursors[.todoEdit] = nil  // the cursor starts at the end
            }
        case .character("d"), .delete:
            if let id = model.selectedTodo?.id { store.send(.deleteTapped(id: id)) }
        default:
            return .ignored
        }
        return .handled
    }

    /// Lists every item again; the next search starts from an empty field.
    private func clearSearch() {
        store.binding(\.search).value = ""
        ui.cursors[.todoSearch] = nil
    }
}
