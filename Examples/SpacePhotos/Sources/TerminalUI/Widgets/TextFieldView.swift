/// Draws a one-line text field: its text scrolled so the cursor shows, the
/// cursor as a reversed cell while focused, a placeholder while empty, and
/// bullets instead of the characters of a password.
public struct TextFieldView: Sendable {
    /// The field's text, as typed.
    public var text: String
    /// Where the cursor is, in characters from the start (the text's length puts
    /// it after the last); clamped to the text when drawn.
    public var cursor: Int
    /// Whether the field has the focus: only then is the cursor drawn.
    public var isFocused: Bool
    /// Whether to draw a bullet for each character, for passwords.
    public var isSecure: Bool
    /// What shows, dimmed, while the text is empty.
    public var placeholder: String
    /// The style of the field's whole line; underlined by default so an empty field shows.
    public var style: CellStyle

    /// A field showing `text` with the cursor at `cursor`; by default its
    /// characters show, underlined, with no placeholder.
    public init(
        text: String,
        cursor: Int,
        isFocused: Bool,
        isSecure: Bool = false,
        placeholder: String = "",
        style: CellStyle = .underline
    ) {
        self.text = text
        self.cursor = cursor
        self.isFocused = isFocused
        self.isSecure = isSecure
        self.placeholder = placeholder
        self.style = style
    }

    /// Draws the field on the first row of `rect`, as wide as `rect`, scrolled
    /// so the cursor shows.
    public func draw(in rect: Rect, on buffer: inout ScreenBuffer) {
        guard rect.width > 0, rect.height > 0 else { return }
        buffer.fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: .blank(style))
        let shown: [Character] = isSecure ? Array(repeating: "•", count: text.count) : Array(text)
        let cursor = min(max(0, self.cursor), shown.count)
        if shown.isEmpty {
            buffer.write(
                placeholder,
                at: rect.x + (isFocused ? 1 : 0),
                rect.y,
                style: style.adding(.dim),
                maxWidth: rect.width - 1
            )
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
