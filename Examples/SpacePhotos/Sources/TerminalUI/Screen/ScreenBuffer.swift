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
    /// Columns, at least 0.
    public let width: Int
    /// Rows, at least 0.
    public let height: Int
    /// Row-major cells, `width × height` of them.
    public var cells: [Cell] { storage }
    /// The cells, writable by the inlinable setters (a public property's
    /// private setter is out of their reach).
    @usableFromInline var storage: [Cell]

    /// A blank screen of `width` × `height` cells.
    public init(width: Int, height: Int, fill: Cell = .blank()) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.storage = Array(repeating: fill, count: self.width * self.height)
    }

    /// The whole screen.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at column `x`, row `y`.
    @inlinable
    public subscript(x: Int, y: Int) -> Cell {
        storage[y * width + x]
    }

    /// Replaces the cell at (`x`, `y`), keeping wide characters whole: a wide
    /// character overwritten in either half leaves a blank in the other.
    /// Cells outside the screen are ignored.
    @inlinable
    public mutating func set(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = y * width + x
        clearWideCharacter(at: index, x: x)
        if cell.width == 2 {
            // A wide character needs its second column on this row.
            guard x + 1 < width else {
                storage[index] = .blank(cell.style)
                return
            }
            clearWideCharacter(at: index + 1, x: x + 1)
            storage[index] = cell
            storage[index + 1] = .continuation(cell.style)
        } else {
            storage[index] = cell
        }
    }

    @inlinable
    mutating func clearWideCharacter(at index: Int, x: Int) {
        let oldWidth = storage[index].width
        if oldWidth == 0, x > 0 {
            storage[index - 1] = .blank(storage[index - 1].style)
        } else if oldWidth == 2, x + 1 < width {
            storage[index + 1] = .blank(storage[index + 1].style)
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
        _ text: S,
        at x: Int,
        _ y: Int,
        style: CellStyle = .plain,
        maxWidth: Int? = nil
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
                change(&storage[y * width + x].style)
            }
        }
    }

    /// `rect`'s part that is on the screen.
    public func clip(_ rect: Rect) -> Rect {
        let x = max(0, rect.x)
        let y = max(0, rect.y)
        return Rect(x: x, y: y, width: min(rect.maxX, width) - x, height: min(rect.maxY, height) - y)
    }

    /// The screen as text, a line per row, trailing spaces kept so that
    /// every line is as wide as the screen (continuation cells are left out,
    /// so a line reads as it looks). For tests.
    public var lines: [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width {
                if let grapheme = storage[y * width + x].grapheme { line.append(grapheme) }
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
