import SpacePhotosCore
import TerminalUI

/// The main screen: the tab bar and the selected tab's screen, whose keys
/// come first; the keys it ignores switch tabs.
@MainActor
struct MainScreen: Screen {
    let program: SpacePhotosProgram

    /// The selected tab's screen: the one place that switches on the tab.
    private var tab: any Screen {
        let (store, ui, actions) = (program.store, program.ui, program.actions)
        switch store.tab.value {
        case .photos:
            return PhotosScreen(
                photos: store.scope(state: \.photos, action: \.photos),
                saved: store.scope(state: \.saved, action: \.saved),
                favourites: store.scope(state: \.favourites, action: \.favourites),
                ui: ui,
                images: program.images,
                image: program.photoImage,
                pipeline: program.pipeline,
                actions: actions
            )
        case .saved:
            return SavedScreen(
                saved: store.scope(state: \.saved, action: \.saved),
                favourites: store.scope(state: \.favourites, action: \.favourites),
                ui: ui,
                images: program.images,
                image: program.savedImage,
                actions: actions
            )
        case .todos:
            return TodosScreen(store: store.scope(state: \.todos, action: \.todos), ui: ui, actions: actions)
        case .counter:
            return CounterScreen(store: store.scope(state: \.counter, action: \.counter), actions: actions)
        case .profile:
            return ProfileScreen(
                app: store,
                profile: store.scope(state: \.profile, action: \.profile),
                actions: actions
            )
        }
    }

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let store = program.store
        drawTabBar(into: &frame, width: rect.width)
        let content = Rect(x: rect.x, y: rect.y + 2, width: rect.width, height: rect.height - 2)
        // Work a view would start in `.task` when the main screen appears:
        // the catalog, the lists' live queries, the kept values, and this
        // session's profile.
        // A live query is the store's, not the task's: it follows the
        // database until the store goes, so its task only starts it (and
        // starts it over when the main screen comes back after a log out).
        frame.task(id: "catalog") { await store.send(.photos(.catalog(.updateItems))).finish() }
        frame.task(id: "saved") { store.send(.saved(.photos(.start))) }
        // The values kept between launches: the last tab, the count.
        frame.task(id: "tab") { store.send(.tab(.start)) }
        frame.task(id: "count") { store.send(.counter(.count(.start))) }
        // The live favourites, for as long as the main screen shows.
        frame.task(id: "favourites") { await store.send(.favourites(.start)).finish() }
        // The member's to-do list and its sync, once their database is open
        // (a log out ends them with the main screen).
        if let member = store.openTodoList {
            frame.task(id: "todos") { store.send(.todos(.todos(.start))) }
            frame.task(id: "todo sync") { await store.send(.todos(.sync(.start(member: member)))).finish() }
        }
        if let profile = store.scope(state: \.profile, action: \.profile) {
            frame.task(id: "profile \(profile.id)") { await profile.send(.load).finish() }
        }
        tab.draw(into: &frame, in: content, tick: tick)
    }

    private func drawTabBar(into frame: inout Frame, width: Int) {
        let store = program.store
        var x = 1
        x += frame.buffer.write("SpacePhotos ", at: x, 0, style: Theme.accent)
        for (index, tab) in AppTab.allCases.enumerated() {
            let label = " \(index + 1) \(tab.title) "
            x += frame.buffer.write(label, at: x, 0, style: tab == store.tab.value ? Theme.activeTab : .plain) + 1
        }
        if let nickname = store.profile?.member?.nickname {
            let text = "★ \(nickname)"
            frame.buffer.write(text, at: width - TextWidth.of(text) - 1, 0, style: Theme.secondary)
        }
        frame.buffer.write(String(repeating: "─", count: width), at: 0, 1, style: Theme.secondary)
    }

    var statusMessage: String? { tab.statusMessage }

    var isTyping: Bool { tab.isTyping }

    var hints: [KeyHint] {
        let tab = self.tab
        if tab.isTyping { return tab.hints }
        return tab.hints + [KeyHint("Tab 1-5", "tabs"), KeyHint("q", "quit")]
    }

    /// The tab's keys first; Tab, Shift-Tab and the digits switch tabs.
    func handle(_ event: InputEvent) -> InputResult {
        if tab.handle(event) == .handled { return .handled }
        guard case let .key(press) = event else { return .ignored }
        let store = program.store
        switch press.key {
        case .tab:
            store.binding(\.tab.value).value = store.tab.value.next
        case .backTab:
            store.binding(\.tab.value).value = store.tab.value.previous
        case let .character(character) where press.modifiers.isEmpty:
            guard let digit = character.wholeNumberValue, (1...AppTab.allCases.count).contains(digit) else {
                return .ignored
            }
            store.binding(\.tab.value).value = AppTab.allCases[digit - 1]
        default:
            return .ignored
        }
        return .handled
    }
}
