/// Draws a one-line text field: its text scrolled so the cursor shows, the
/// cursor as a reversed cell while focused, a placeholder while empty, and
/// bullets instead of the characters of a password.
public struct TextFieldView: Sendable {
    public var text: String
    public var cursor: Int
    public var isFocused: Bool
    public var isSecure: Bool
    public var placeholder: String
    public var style: CellStyle

    public init(
        text: String, cursor: Int, isFocused: Bool, isSecure: Bool = false,
        placeholder: String = "", style: CellStyle = .underline
    ) {
        self.text = text
        self.cursor = cursor
        self.isFocused = isFocused
        self.isSecure = isSecure
        self.placeholder = placeholder
        self.style = style
    }

    public func draw(in rect: Rect, on buffer: inout ScreenBuffer) {
        guard rect.width > 0, rect.height > 0 else { return }
        buffer.fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: .blank(style))
        let shown: [Character] = isSecure ? Array(repeating: "•", count: text.count) : Array(text)
        let cursor = min(max(0, self.cursor), shown.count)
        if shown.isEmpty {
            buffer.write(placeholder, at: rect.x + (isFocused ? 1 : 0), rect.y, style: style.adding(.dim), maxWidth: rect.width - 1)
        }
        // Scroll so that the cursor (one cell after the text at most) fits.
        var start = 0
        var widthBeforeCursor = shown[0..<cursor].reduce(0) { $0 + TextWidth.of($1) }
        while widthBeforeCursor >= rect.width, start < cursor {
            widthBeforeCursor -= TextWidth.of(shown[start])
            start += 1
        }
        var x = rect.x
        for index in start..<shown.count {
            let characterWidth = TextWidth.of(shown[index])
            guard characterWidth > 0 else { continue }
            if x + characterWidth > rect.maxX { break }
            let cellStyle = isFocused && index == cursor ? style.adding(.reverse) : style
            buffer.set(Cell(shown[index], width: UInt8(characterWidth), style: cellStyle), x: x, y: rect.y)
            x += characterWidth
        }
        if isFocused, cursor == shown.count {
            let cursorX = rect.x + min(widthBeforeCursor, rect.width - 1)
            buffer.set(Cell(" ", style: style.adding(.reverse)), x: cursorX, y: rect.y)
        }
    }
}
