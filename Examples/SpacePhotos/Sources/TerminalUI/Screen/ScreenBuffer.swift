/// A full screen of cells: what a view draws into, and what the
/// ``FrameEncoder`` compares with the previous frame.
///
/// Views draw the whole screen each frame (immediate mode, as ratatui does);
/// the diff decides what reaches the terminal.
///
/// ```swift
/// var buffer = ScreenBuffer(width: 80, height: 24)
/// buffer.write("Hello, 世界", at: 2, 1, style: .bold)
/// buffer.text       // "\n  Hello, 世界" (lines, trailing spaces trimmed)
/// ```
public struct ScreenBuffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// Row-major cells, `width × height` of them.
    public private(set) var cells: [Cell]

    /// A blank screen of `width` × `height` cells.
    public init(width: Int, height: Int, fill: Cell = .blank()) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: fill, count: self.width * self.height)
    }

    /// The whole screen.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
    }

    /// Replaces the cell at (`x`, `y`), keeping wide characters whole: a wide
    /// character overwritten in either half leaves a blank in the other.
    /// Cells outside the screen are ignored.
    public mutating func set(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = y * width + x
        clearWideCharacter(at: index, x: x)
        if cell.width == 2 {
            // A wide character needs its second column on this row.
            guard x + 1 < width else {
                cells[index] = .blank(cell.style)
                return
            }
            clearWideCharacter(at: index + 1, x: x + 1)
            cells[index] = cell
            cells[index + 1] = .continuation(cell.style)
        } else {
            cells[index] = cell
        }
    }

    private mutating func clearWideCharacter(at index: Int, x: Int) {
        let old = cells[index]
        if old.isContinuation, x > 0 {
            cells[index - 1] = .blank(cells[index - 1].style)
        } else if old.width == 2, x + 1 < width {
            cells[index + 1] = .blank(cells[index + 1].style)
        }
    }

    /// Writes `text` from column `x` of row `y`, at most `maxWidth` columns
    /// (and never past the screen's edge); returns the columns written.
    ///
    /// Control characters are left out, a wide character that would cross
    /// the limit stops the text, and each grapheme takes the columns
    /// ``TextWidth`` gives it.
    @discardableResult
    public mutating func write<S: StringProtocol>(
        _ text: S, at x: Int, _ y: Int, style: CellStyle = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let limit = min(maxWidth ?? Int.max, width - x)
        var column = x
        for character in text {
            let characterWidth = TextWidth.of(character)
            if characterWidth == 0 { continue }
            if column + characterWidth > x + limit { break }
            if column >= 0 {
                set(Cell(character, width: UInt8(characterWidth), style: style), x: column, y: y)
            }
            column += characterWidth
        }
        return column - x
    }

    /// Fills `rect` with `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell = .blank()) {
        let clipped = clip(rect)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.maxY {
            for x in clipped.x..<clipped.maxX {
                set(cell, x: x, y: y)
            }
        }
    }

    /// Changes the style of every cell in `rect`, keeping their text.
    public mutating func restyle(_ rect: Rect, _ change: (inout CellStyle) -> Void) {
        let clipped = clip(rect)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.maxY {
            for x in clipped.x..<clipped.maxX {
                change(&cells[y * width + x].style)
            }
        }
    }

    /// `rect`'s part that is on the screen.
    public func clip(_ rect: Rect) -> Rect {
        let x = max(0, rect.x), y = max(0, rect.y)
        return Rect(x: x, y: y, width: min(rect.maxX, width) - x, height: min(rect.maxY, height) - y)
    }

    /// The screen as text, a line per row, trailing spaces kept so that
    /// every line is as wide as the screen (continuation cells are left out,
    /// so a line reads as it looks). For tests.
    public var lines: [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width {
                if let grapheme = cells[y * width + x].grapheme { line.append(grapheme) }
            }
            return line
        }
    }

    /// ``lines`` with trailing spaces trimmed, joined by newlines. For tests.
    public var text: String {
        lines.map { line in
            var trimmed = Substring(line)
            while trimmed.last == " " { trimmed.removeLast() }
            return String(trimmed)
        }.joined(separator: "\n")
    }
}
