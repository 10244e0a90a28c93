import SpacePhotosCore
import TerminalUI

/// The main screen: the tab bar, the selected tab, a status line for
/// messages, and a footer with every key that works now.
@MainActor
struct MainScreen {
    let app: AppModel
    let ui: InterfaceState
    let images: ImageCellCache

    func draw(into frame: inout Frame, tick: Int) {
        let bounds = frame.buffer.bounds
        drawTabBar(into: &frame, width: bounds.width)
        let content = Rect(x: 0, y: 2, width: bounds.width, height: bounds.height - 4)
        // Loads a view would start in `.task` when the main screen appears:
        // the catalog, the to-do list's observation, and this session's profile.
        frame.task(id: "catalog") { [photos = app.photos] in await photos.refresh() }
        frame.task(id: "todos") { [todos = app.todos] in await todos.send(.observe).finish() }
        frame.task(id: "profile \(ObjectIdentifier(app.profile))") { [profile = app.profile] in await profile.load() }

        switch app.store.tab {
        case .photos:
            PhotosScreen(browser: app.photos, ui: ui, images: images).draw(into: &frame, in: content, tick: tick)
        case .saved: SavedScreen(browser: app.saved, ui: ui, images: images).draw(into: &frame, in: content, tick: tick)
        case .todos: TodosScreen(store: app.todos, ui: ui).draw(into: &frame, in: content, tick: tick)
        case .counter: CounterScreen(store: app.counter).draw(into: &frame, in: content, tick: tick)
        case .profile: ProfileScreen(model: app.profile, app: app).draw(into: &frame, in: content, tick: tick)
        }
        drawStatus(into: &frame, row: bounds.height - 2, width: bounds.width)
        frame.buffer.drawHints(hints, row: bounds.height - 1, width: bounds.width)
    }

    private func drawTabBar(into frame: inout Frame, width: Int) {
        var x = 1
        x += frame.buffer.write("SpacePhotos ", at: x, 0, style: Theme.accent)
        for (index, tab) in AppTab.allCases.enumerated() {
            let label = " \(index + 1) \(tab.title) "
            x += frame.buffer.write(label, at: x, 0, style: tab == app.store.tab ? Theme.activeTab : .plain) + 1
        }
        if let nickname = app.profile.member?.nickname {
            let text = "★ \(nickname)"
            frame.buffer.write(text, at: width - TextWidth.of(text) - 1, 0, style: Theme.secondary)
        }
        frame.buffer.write(String(repeating: "─", count: width), at: 0, 1, style: Theme.secondary)
    }

    /// A notice from the last key, else the current tab's error.
    private func drawStatus(into frame: inout Frame, row: Int, width: Int) {
        if let notice = ui.notice {
            frame.buffer.write(notice, at: 1, row, style: Theme.notice, maxWidth: width - 2)
            return
        }
        let error: String? =
            switch app.store.tab {
            case .photos, .saved: app.photos.saved.errorMessage
            case .todos: app.todos.errorMessage
            case .counter, .profile: nil
            }
        if let error {
            frame.buffer.write(error, at: 1, row, style: Theme.error, maxWidth: width - 2)
        }
    }

    var isTyping: Bool {
        app.store.tab == .todos && TodosScreen(store: app.todos, ui: ui).isTyping
    }

    var hints: [KeyHint] {
        let tabHints: [KeyHint] =
            switch app.store.tab {
            case .photos: PhotosScreen(browser: app.photos, ui: ui, images: images).hints
            case .saved: SavedScreen(browser: app.saved, ui: ui, images: images).hints
            case .todos: TodosScreen(store: app.todos, ui: ui).hints
            case .counter: CounterScreen(store: app.counter).hints
            case .profile: ProfileScreen(model: app.profile, app: app).hints
            }
        if isTyping { return tabHints }
        return tabHints + [KeyHint("Tab 1-5", "tabs"), KeyHint("q", "quit")]
    }

    /// Keys of the main screen. Returns whether `q` asked to quit.
    func handle(_ event: InputEvent, actions: ActionTasks) -> Bool {
        if app.store.tab == .todos, isTyping {
            TodosScreen(store: app.todos, ui: ui).handle(event, actions: actions)
            return false
        }
        guard case let .key(press) = event else { return false }
        switch press.key {
        case .tab:
            app.store.binding(\.tab).value = app.store.tab.next
            return false
        case .backTab:
            app.store.binding(\.tab).value = app.store.tab.previous
            return false
        case let .character(character) where press.modifiers.isEmpty:
            if let digit = character.wholeNumberValue, (1...AppTab.allCases.count).contains(digit) {
                app.store.binding(\.tab).value = AppTab.allCases[digit - 1]
                return false
            }
            if character == "q" { return true }
        default:
            break
        }
        switch app.store.tab {
        case .photos: _ = PhotosScreen(browser: app.photos, ui: ui, images: images).handle(press, actions: actions)
        case .saved: _ = SavedScreen(browser: app.saved, ui: ui, images: images).handle(press, actions: actions)
        case .todos: TodosScreen(store: app.todos, ui: ui).handle(event, actions: actions)
        case .counter: _ = CounterScreen(store: app.counter).handle(press, actions: actions)
        case .profile: _ = ProfileScreen(model: app.profile, app: app).handle(press, actions: actions)
        }
        return false
    }
}
