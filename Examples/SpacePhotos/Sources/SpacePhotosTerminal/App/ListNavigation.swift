import SpacePhotosCore
import TerminalUI

/// The keys that move a list's selection, and the visible part of a list.
enum ListNavigation {
    /// How far `press` moves the selection in a list whose page is
    /// `pageSize` rows; `nil` when it is not a moving key. Home and End go
    /// to the ends (a large offset; moves stop at the ends).
    static func offset(for press: KeyPress, pageSize: Int) -> Int? {
        guard press.modifiers.isDisjoint(with: [.control, .alt]) else { return nil }
        switch press.key {
        case .up, .character("k"): return -1
        case .down, .character("j"): return 1
        case .pageUp: return -pageSize
        case .pageDown: return pageSize
        case .home, .character("g"): return -Int(Int32.max)
        case .end, .character("G"): return Int(Int32.max)
        default: return nil
        }
    }

    static let hint = KeyHint("↑↓ PgUp PgDn", "select")
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
