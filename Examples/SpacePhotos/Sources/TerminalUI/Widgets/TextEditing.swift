/// The editing keys of a one-line text field, applied to a string owned by a
/// model (the terminal's equivalent of binding a `TextField` to `$model.text`);
/// only the cursor is the field's own state.
///
/// ```swift
/// switch TextEditing.apply(event, to: &model.draft, cursor: &draftCursor, limit: Todo.maximumTextLength) {
/// case .truncated(let dropped): notice = "Pasted text cut to the limit (\(dropped) characters left out)."
/// default: break
/// }
/// ```
///
/// Keys: characters type, a paste inserts (line breaks become spaces),
/// Backspace and Delete erase, ←/→ move by a character, Home/End (and
/// Ctrl-A/Ctrl-E) to the ends, Ctrl-U clears up to the cursor, Ctrl-W
/// erases the word before it.
public enum TextEditing {
    /// What an event did to the field.
    public enum Result: Equatable, Sendable {
        /// The text changed.
        case edited
        /// Only the cursor moved.
        case moved
        /// Text was inserted up to the limit; `dropped` characters were left out.
        case truncated(dropped: Int)
        /// The event is not an editing key: the caller may handle it.
        case ignored
    }

    /// Applies `event` to `text`, with the cursor at `cursor` (a character
    /// offset, clamped to the text first), keeping at most `limit` characters.
    @discardableResult
    public static func apply(_ event: InputEvent, to text: inout String, cursor: inout Int, limit: Int = .max) -> Result
    {
        cursor = min(max(0, cursor), text.count)
        switch event {
        case let .paste(pasted):
            // One line: line breaks and tabs become spaces, other controls go.
            let flattened = String(
                pasted.compactMap { character -> Character? in
                    if character.isNewline || character == "\t" { return " " }
                    let isControl = character.unicodeScalars.first?.properties.generalCategory == .control
                    return isControl ? nil : character
                }
            )
            return insert(flattened, into: &text, cursor: &cursor, limit: limit)
        case let .key(press):
            return apply(press, to: &text, cursor: &cursor, limit: limit)
        case .unknown:
            return .ignored
        }
    }

    private static func apply(_ press: KeyPress, to text: inout String, cursor: inout Int, limit: Int) -> Result {
        if let character = press.typedCharacter {
            return insert(String(character), into: &text, cursor: &cursor, limit: limit)
        }
        switch (press.key, press.modifiers) {
        case (.backspace, _):
            guard cursor > 0 else { return .moved }
            let index = text.index(text.startIndex, offsetBy: cursor - 1)
            text.remove(at: index)
            cursor -= 1
            return .edited
        case (.delete, _), (.character("d"), .control):
            guard cursor < text.count else { return .moved }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor))
            return .edited
        case (.left, _), (.character("b"), .control):
            cursor = max(0, cursor - 1)
            return .moved
        case (.right, _), (.character("f"), .control):
            cursor = min(text.count, cursor + 1)
            return .moved
        case (.home, _), (.character("a"), .control):
            cursor = 0
            return .moved
        case (.end, _), (.character("e"), .control):
            cursor = text.count
            return .moved
        case (.character("u"), .control):
            text.removeSubrange(text.startIndex..<text.index(text.startIndex, offsetBy: cursor))
            cursor = 0
            return .edited
        case (.character("w"), .control):
            let characters = Array(text)
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            guard start < cursor else { return .moved }
            text = String(characters[0..<start] + characters[cursor...])
            cursor = start
            return .edited
        default:
            return .ignored
        }
    }

    private static func insert(_ inserted: String, into text: inout String, cursor: inout Int, limit: Int) -> Result {
        let room = max(0, limit - text.count)
        let count = inserted.count
        let kept = count <= room ? inserted : String(inserted.prefix(room))
        if !kept.isEmpty {
            let index = text.index(text.startIndex, offsetBy: cursor)
            let end = text.utf8.distance(from: text.startIndex, to: index) + kept.utf8.count
            text.insert(contentsOf: kept, at: index)
            // Counted again: a typed combining mark or flag half merges with
            // its neighbour, so the text may have fewer new characters.
            cursor = text.distance(from: text.startIndex, to: text.utf8.index(text.startIndex, offsetBy: end))
        }
        return kept.count < count ? .truncated(dropped: count - kept.count) : .edited
    }
}
