/// Borders and titles.
extension ScreenBuffer {
    /// Draws a rounded border around `rect`, with `title` in its top edge.
    public mutating func drawBox(
        _ rect: Rect,
        title: String? = nil,
        style: CellStyle = .dim,
        titleStyle: CellStyle = .bold
    ) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let (left, right, top, bottom) = (rect.x, rect.maxX - 1, rect.y, rect.maxY - 1)
        let horizontal = Cell("─", style: style)
        let vertical = Cell("│", style: style)
        for x in left...right {
            set(horizontal, x: x, y: top)
            set(horizontal, x: x, y: bottom)
        }
        for y in top...bottom {
            set(vertical, x: left, y: y)
            set(vertical, x: right, y: y)
        }
        set(Cell("╭", style: style), x: left, y: top)
        set(Cell("╮", style: style), x: right, y: top)
        set(Cell("╰", style: style), x: left, y: bottom)
        set(Cell("╯", style: style), x: right, y: bottom)
        if let title, rect.width > 4 {
            write(" \(title) ", at: left + 1, top, style: titleStyle, maxWidth: rect.width - 2)
        }
    }

    /// Writes `text` centred in row `y` of `rect`.
    @discardableResult
    public mutating func writeCentered(_ text: String, in rect: Rect, row y: Int, style: CellStyle = .plain) -> Int {
        let width = min(TextWidth.of(text), rect.width)
        return write(text, at: rect.x + (rect.width - width) / 2, y, style: style, maxWidth: rect.width)
    }

    /// Writes `text` wrapped at word boundaries into `rect`; returns the
    /// lines used.
    @discardableResult
    public mutating func writeWrapped(_ text: String, in rect: Rect, style: CellStyle = .plain) -> Int {
        let lines = TextWrapping.lines(of: text, width: rect.width)
        for (offset, line) in lines.prefix(rect.height).enumerated() {
            write(line, at: rect.x, rect.y + offset, style: style, maxWidth: rect.width)
        }
        return min(lines.count, rect.height)
    }
}

/// Word wrapping by display width.
public enum TextWrapping {
    /// `text` broken into lines of at most `width` columns, at spaces where
    /// possible (a word longer than a line is broken inside).
    public static func lines(of text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ") {
                var word = Substring(word)
                var wordWidth = TextWidth.of(word)
                if lineWidth > 0, lineWidth + 1 + wordWidth > width {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                while wordWidth > width {
                    // Longer than a line: break it.
                    let (head, headWidth) = TextWidth.prefix(
                        of: word,
                        fitting: width - lineWidth - (lineWidth > 0 ? 1 : 0)
                    )
                    guard !head.isEmpty else {
                        if lineWidth == 0 {
                            // Not even one character fits: leave it out.
                            word = word.dropFirst()
                            wordWidth = TextWidth.of(word)
                        } else {
                            lines.append(line)
                            line = ""
                            lineWidth = 0
                        }
                        continue
                    }
                    line += (lineWidth > 0 ? " " : "") + head
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                    word = word[head.endIndex...]
                    wordWidth -= headWidth
                }
                if !word.isEmpty {
                    line += (lineWidth > 0 ? " " : "") + word
                    lineWidth += (lineWidth > 0 ? 1 : 0) + wordWidth
                }
            }
            lines.append(line)
        }
        return lines
    }
}
