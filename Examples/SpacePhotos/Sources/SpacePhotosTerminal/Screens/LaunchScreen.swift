import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The screens before login: checking the stored session, and the server
/// being unreachable (with a retry).
@MainActor
struct LaunchScreen: Screen {
    let store: Store<AppFeature.State, AppFeature.Action>
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        switch store.screen {
        case let .unavailable(message):
            let lines = TextWrapping.lines(of: message, width: min(rect.width - 4, 70))
            let top = rect.y + max(0, (rect.height - lines.count - 2) / 2)
            frame.buffer.writeCentered("SpacePhotos", in: rect, row: top - 2, style: Theme.title)
            for (offset, line) in lines.enumerated() {
                frame.buffer.writeCentered(line, in: rect, row: top + offset, style: Theme.error)
            }
        default:
            let spinner = frame.spinner(at: tick)
            frame.buffer.writeCentered("SpacePhotos", in: rect, row: rect.y + rect.height / 2 - 2, style: Theme.title)
            frame.buffer.writeCentered("\(spinner) Checking your session…", in: rect, row: rect.y + rect.height / 2)
        }
    }

    var hints: [KeyHint] {
        if case .unavailable = store.screen {
            return [KeyHint("r", "retry"), KeyHint("q", "quit")]
        }
        return [KeyHint("Ctrl-C", "quit")]
    }

    /// `r` retries while the server is unavailable; `q` is the app's.
    func handle(_ event: InputEvent) -> InputResult {
        guard case .unavailable = store.screen, event == .key(KeyPress(.character("r"))) else { return .ignored }
        actions.start { [store] in await store.send(.start).finish() }
        return .handled
    }
}

/// What shows when the terminal is smaller than the app needs.
enum TooSmallScreen {
    static func draw(into frame: inout Frame, size: TerminalSize, minimum: TerminalSize) {
        let rect = frame.buffer.bounds
        let lines = TextWrapping.lines(
            of:
                "The terminal is \(size.columns)×\(size.rows); SpacePhotos needs at least \(minimum.columns)×\(minimum.rows). Make the window larger, or press Ctrl-C to quit.",
            width: max(1, rect.width - 2)
        )
        let top = max(0, (rect.height - lines.count) / 2)
        for (offset, line) in lines.enumerated() {
            frame.buffer.writeCentered(line, in: rect, row: top + offset, style: Theme.notice)
        }
    }
}
