import SpacePhotosCore
import TerminalUI

/// What every screen of the terminal app is: a view of its store's state
/// (``draw(into:in:tick:)``), the keys that work now (``hints``), and one
/// handler of input whose answer the caller acts on: a key a screen
/// ``InputResult/ignored`` goes to the screen around it (the main screen's
/// tab keys, then the app's `q`).
@MainActor
protocol Screen {
    /// Draws the screen into `rect`; `tick` moves its spinners.
    func draw(into frame: inout Frame, in rect: Rect, tick: Int)
    /// The keys that work now, for the footer.
    var hints: [KeyHint] { get }
    /// Whether keys go to a text field, so that keys of the screens around
    /// it (`q`, the tab numbers) must not act; their hints are left out.
    var isTyping: Bool { get }
    /// An error the screen reports on the status line; `nil` for none.
    var statusMessage: String? { get }
    /// Handles one input event (a key or a paste).
    func handle(_ event: InputEvent) -> InputResult
}

extension Screen {
    var isTyping: Bool { false }
    var statusMessage: String? { nil }
}

/// Whether a screen used an input event.
enum InputResult: Equatable, Sendable {
    /// The screen acted on it.
    case handled
    /// Not the screen's: the screen around it may act on it.
    case ignored
}

extension KeyPress {
    /// How far this key moves a list's selection (``ListSelection``) in a
    /// list whose page is `pageSize` rows; `nil` when it is not a moving
    /// key. Home and End go to the ends (a large offset; moves stop there).
    func selectionOffset(pageSize: Int) -> Int? {
        guard modifiers.isDisjoint(with: [.control, .alt]) else { return nil }
        switch key {
        case .up, .character("k"): return -1
        case .down, .character("j"): return 1
        case .pageUp: return -pageSize
        case .pageDown: return pageSize
        case .home, .character("g"): return -Int(Int32.max)
        case .end, .character("G"): return Int(Int32.max)
        default: return nil
        }
    }
}

extension KeyHint {
    /// The hint for the keys that move a list's selection.
    static let listSelection = KeyHint("↑↓ PgUp PgDn", "select")
}

extension InterfaceState {
    /// The rows of `tab`'s list that show in `height` lines, keeping the
    /// selected row in view and remembering the window for the next frame.
    func visibleRows(of tab: AppTab, count: Int, selected: Int?, height: Int) -> Range<Int> {
        let window = (listWindows[tab] ?? ListWindow()).scrolled(toShow: selected, count: count, height: height)
        listWindows[tab] = window
        listHeights[tab] = height
        return window.visibleRows(count: count, height: height)
    }

    /// A page of `tab`'s list, as last drawn.
    func pageSize(of tab: AppTab) -> Int {
        max(1, (listHeights[tab] ?? 10) - 1)
    }
}

extension ScreenBuffer {
    /// A list row: `text` in `rect`'s first line, reversed when selected.
    mutating func drawRow(_ text: String, in rect: Rect, selected: Bool, style: CellStyle = .plain) {
        let rowStyle = selected ? style.adding(.reverse) : style
        if selected { fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: .blank(rowStyle)) }
        write(text, at: rect.x, rect.y, style: rowStyle, maxWidth: rect.width)
    }
}
