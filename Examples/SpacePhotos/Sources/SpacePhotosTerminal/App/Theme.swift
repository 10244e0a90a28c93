import TerminalUI

/// The styles the screens share.
enum Theme {
    static let title = CellStyle(attributes: .bold)
    static let activeTab = CellStyle(attributes: [.bold, .reverse])
    static let selection = CellStyle(attributes: .reverse)
    static let hintKey = CellStyle(attributes: .bold)
    static let hint = CellStyle(attributes: .dim)
    static let secondary = CellStyle(attributes: .dim)
    static let error = CellStyle(foreground: .red)
    static let notice = CellStyle(foreground: .yellow)
    static let success = CellStyle(foreground: .green)
    static let button = CellStyle(attributes: [.bold, .reverse])
    static let disabledButton = CellStyle(attributes: .dim)
    static let field = CellStyle(attributes: .underline)
    static let accent = CellStyle(foreground: .cyan, attributes: .bold)
}

/// A key and what it does, for the footer.
public struct KeyHint: Equatable, Sendable {
    /// The keys to press, as the footer shows them (`Tab`, `n Esc`).
    public var keys: String
    /// What they do, in a word or two (`quit`, `stay`).
    public var action: String

    /// A hint that `keys` do `action`.
    public init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}

extension ScreenBuffer {
    /// Draws `hints` on row `y` from column `x` as "key action · key
    /// action", as many as fit before column `x + width - 2`.
    mutating func drawHints(_ hints: [KeyHint], at startX: Int = 0, row y: Int, width: Int) {
        var x = startX + 1
        for (index, hint) in hints.enumerated() {
            let separator = index == 0 ? "" : " · "
            let needed = TextWidth.of(separator) + TextWidth.of(hint.keys) + 1 + TextWidth.of(hint.action)
            guard x + needed <= startX + width - 1 else { break }
            x += write(separator, at: x, y, style: Theme.hint)
            x += write(hint.keys, at: x, y, style: Theme.hintKey)
            x += write(" " + hint.action, at: x, y, style: Theme.hint)
        }
    }

    /// Draws a button: `[ title ]`, reversed when it works, dim when not.
    @discardableResult
    mutating func drawButton(_ title: String, at x: Int, _ y: Int, enabled: Bool) -> Int {
        write("[ \(title) ]", at: x, y, style: enabled ? Theme.button : Theme.disabledButton)
    }
}
