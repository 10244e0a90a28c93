/// A key, as the terminal reports it.
public enum Key: Hashable, Sendable {
    /// A printable character (with ``KeyPress/modifiers`` for Ctrl and Alt
    /// combinations: Ctrl-C is `.character("c")` with `.control`).
    case character(Character)
    case enter
    case tab
    /// Shift-Tab.
    case backTab
    case backspace
    case delete
    case escape
    case up
    case down
    case left
    case right
    case home
    case end
    case pageUp
    case pageDown
    case insert
    /// F1…F12.
    case function(Int)
}

/// Modifier keys held with a key.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    /// The modifier bits: Shift 1, Alt 2, Ctrl 4.
    public let rawValue: UInt8
    /// The modifiers whose bits are set in `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Shift, as terminals report it with arrows and function keys (a shifted
    /// character arrives as the character itself).
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    /// Alt (Option): the terminal sends `ESC` before the key.
    public static let alt = KeyModifiers(rawValue: 1 << 1)
    /// Ctrl: with a letter, the terminal sends a control byte (Ctrl-C is 0x03).
    public static let control = KeyModifiers(rawValue: 1 << 2)

    /// From the xterm modifier parameter (`CSI 1;5A` is Ctrl-Up): 1 + a bit
    /// each for Shift, Alt and Ctrl.
    init(xtermParameter: Int) {
        let bits = max(0, xtermParameter - 1)
        var modifiers: KeyModifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        self = modifiers
    }
}

/// A key with its modifiers.
public struct KeyPress: Hashable, Sendable, CustomStringConvertible {
    /// The key pressed.
    public var key: Key
    /// The modifiers held with it; empty for a plain key.
    public var modifiers: KeyModifiers

    /// A press of `key` with `modifiers` held.
    public init(_ key: Key, modifiers: KeyModifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }

    /// The character this key types into a text field, if it types one.
    public var typedCharacter: Character? {
        guard case let .character(character) = key, modifiers.isDisjoint(with: [.control, .alt]) else { return nil }
        return character
    }

    /// The press as a help line writes it: `Ctrl-c`, `Alt-Shift-up`, `F5`.
    public var description: String {
        var parts: [String] = []
        if modifiers.contains(.control) { parts.append("Ctrl") }
        if modifiers.contains(.alt) { parts.append("Alt") }
        if modifiers.contains(.shift) { parts.append("Shift") }
        switch key {
        case let .character(character): parts.append(String(character))
        case let .function(number): parts.append("F\(number)")
        default: parts.append("\(key)")
        }
        return parts.joined(separator: "-")
    }
}

/// One thing the user did at the terminal.
public enum InputEvent: Hashable, Sendable {
    /// A key was pressed.
    case key(KeyPress)
    /// Text was pasted (bracketed paste): one event, however long, so a paste
    /// is never mistaken for typed commands.
    case paste(String)
    /// A sequence this decoder does not know (mouse reports, focus events,
    /// keys of exotic terminals), as it came.
    case unknown([UInt8])

    /// A key press event.
    public static func key(_ key: Key, _ modifiers: KeyModifiers = []) -> InputEvent {
        .key(KeyPress(key, modifiers: modifiers))
    }
}
