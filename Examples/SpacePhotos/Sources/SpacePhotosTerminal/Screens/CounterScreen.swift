import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The counter: + and −, the number's fact, a refresh that lasts as long
/// as the fetch (`send(_:while:)`), and Esc to cancel it.
@MainActor
struct CounterScreen: Screen {
    let store: Store<FactCounter.State, FactCounter.Action>
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        frame.buffer.drawBox(rect, title: "Counter")
        let inner = rect.inset(top: 2, left: 4, bottom: 1, right: 4)
        let state = store.state
        frame.buffer.writeCentered("−   \(state.count.value)   +", in: inner, row: inner.y + 1, style: Theme.accent)
        let factRect = Rect(x: inner.x, y: inner.y + 4, width: inner.width, height: max(0, inner.height - 4))
        if state.isLoading {
            let spinner = frame.spinner(at: tick)
            frame.buffer.writeCentered(
                "\(spinner) Fetching a fact about \(state.count.value)… (Esc cancels)",
                in: factRect,
                row: factRect.y,
                style: Theme.secondary
            )
        } else if let fact = state.fact {
            let lines = TextWrapping.lines(of: fact, width: min(factRect.width, 70))
            for (offset, line) in lines.prefix(factRect.height).enumerated() {
                frame.buffer.writeCentered(line, in: factRect, row: factRect.y + offset)
            }
        } else {
            frame.buffer.writeCentered(
                "Press r for a fact about \(state.count.value).",
                in: factRect,
                row: factRect.y,
                style: Theme.secondary
            )
        }
    }

    var hints: [KeyHint] {
        store.isLoading
            ? [KeyHint("Esc", "cancel"), KeyHint("+ −", "count")]
            : [KeyHint("+ −", "count"), KeyHint("r", "fact")]
    }

    func handle(_ event: InputEvent) -> InputResult {
        guard case let .key(press) = event else { return .ignored }
        switch press.key {
        case .character("+"), .character("="), .right, .up:
            store.send(.increment)
        case .character("-"), .left, .down:
            store.send(.decrement)
        case .character("r"):
            // Lasts exactly as long as the fetch, as `.refreshable` does.
            actions.start { [store] in await store.send(.refresh, while: \.isLoading) }
        case .escape:
            store.send(.cancel)
        default:
            return .ignored
        }
        return .handled
    }
}
