import CTerminalSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How many columns text takes in a terminal.
///
/// Widths come from the C library's `wcwidth`, as the terminal's own do, so
/// that East Asian wide characters (日本語, 한국어) take two columns. No width
/// tables are written here. `wcwidth` follows the locale's character type,
/// which is set to UTF-8 once, on first use (``prepareLocale()``).
///
/// A grapheme cluster's width is its first scalar's (combining marks and
/// joiners add none), except that an emoji presentation (the scalar's own
/// default, or a U+FE0F selector) is two columns, which `wcwidth` does not
/// know. Control characters have no width: views strip them.
public enum TextWidth {
    /// Switches `LC_CTYPE` to UTF-8 unless the environment already chose a
    /// UTF-8 locale. Runs once; safe to call many times.
    public static func prepareLocale() {
        _ = localePrepared
    }

    private static let localePrepared: Bool = {
        if let current = setlocale(LC_CTYPE, ""), String(cString: current).uppercased().contains("UTF-8") {
            return true
        }
        // glibc has C.UTF-8 built in; macOS spells it without the "C.".
        return setlocale(LC_CTYPE, "C.UTF-8") != nil || setlocale(LC_CTYPE, "UTF-8") != nil
    }()

    /// The columns `character` takes: 0 (controls, lone combining marks),
    /// 1 or 2.
    @inlinable
    public static func of(_ character: Character) -> Int {
        // Printable ASCII, the common case, without asking the C library.
        if let ascii = character.asciiValue {
            return ascii >= 0x20 && ascii < 0x7F ? 1 : 0
        }
        return nonASCIIWidth(character)
    }

    @usableFromInline
    static func nonASCIIWidth(_ character: Character) -> Int {
        if let first = character.unicodeScalars.first, let width = unambiguousWidth(of: first) {
            return width
        }
        return queriedWidth(character)
    }

    /// The width of a scalar from a block where it is beyond doubt, without
    /// asking the C library: box drawing, block elements and braille take
    /// one column; kana (not the combining sound marks), CJK ideographs,
    /// Hangul syllables and fullwidth forms take two. None is an emoji, so
    /// terminals agree on them too. `nil` elsewhere. (A shortcut only: a
    /// test checks every scalar here against ``queriedWidth(_:)``.)
    static func unambiguousWidth(of scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x2500..<0x25A0, 0x2800..<0x2900: 1
        case 0x3041..<0x3097, 0x30A1..<0x30FB, 0x4E00..<0xA000, 0xAC00..<0xD7A4, 0xFF01..<0xFF61: 2
        default: nil
        }
    }

    /// The width as `wcwidth` and the emoji properties give it.
    static func queriedWidth(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        prepareLocale()
        if first.properties.generalCategory == .control
            || first.properties.generalCategory == .format && scalars.count == 1
        {
            return 0
        }
        if first.properties.isEmojiPresentation || scalars.contains("\u{FE0F}") && first.properties.isEmoji {
            return 2
        }
        let width = Int(baseline_terminal_wcwidth(first.value))
        // -1: not printable in this locale (unassigned): one column keeps
        // the layout whole, the terminal draws a replacement.
        return width < 0 ? 1 : min(width, 2)
    }

    /// The columns `text` takes.
    public static func of<S: StringProtocol>(_ text: S) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest prefix of `text` that fits in `columns`, and its width.
    /// A wide character that would cross the edge is left out.
    public static func prefix<S: StringProtocol>(of text: S, fitting columns: Int) -> (text: Substring, width: Int) {
        let whole = Substring(text)
        var used = 0
        var end = whole.startIndex
        for index in whole.indices {
            let width = of(whole[index])
            if used + width > columns { break }
            used += width
            end = whole.index(after: index)
        }
        return (whole[whole.startIndex..<end], used)
    }
}
