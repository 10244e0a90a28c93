import Testing

@testable import TerminalUI

@Suite("ScreenBuffer")
struct ScreenBufferTests {
    init() { TextWidth.prepareLocale() }

    @Test func widths() {
        #expect(TextWidth.of("a") == 1)
        #expect(TextWidth.of("日本語") == 6)
        #expect(TextWidth.of("한국어") == 6)
        #expect(TextWidth.of("ｱｲｳ") == 3)  // half-width katakana
        #expect(TextWidth.of("e\u{301}") == 1)  // combining accent
        #expect(TextWidth.of("🚀") == 2)
        #expect(TextWidth.of("❤\u{FE0F}") == 2)  // VS16 emoji presentation
        #expect(TextWidth.of("👩‍🚀") == 2)  // a ZWJ sequence is one grapheme
        #expect(TextWidth.of("\u{7}") == 0)
    }

    @Test func theShortcutBlocksAgreeWithTheCLibrary() {
        TextWidth.prepareLocale()
        var checked = 0
        for value in 0x2000..<0x10000 {
            guard let scalar = Unicode.Scalar(value), let width = TextWidth.unambiguousWidth(of: scalar) else {
                continue
            }
            checked += 1
            #expect(
                width == TextWidth.queriedWidth(Character(scalar)),
                "U+\(String(value, radix: 16, uppercase: true))"
            )
            #expect(!scalar.properties.isEmoji, "U+\(String(value, radix: 16, uppercase: true))")
        }
        #expect(checked > 30_000)
        // Just outside: a combining sound mark, and geometric shapes with emoji among them.
        #expect(TextWidth.of("\u{3099}") == 0)
        #expect(TextWidth.of("\u{25FE}") == 2)
    }

    @Test func wideCharactersTakeTwoCellsAndLinesReadAsTheyLook() {
        var buffer = ScreenBuffer(width: 10, height: 2)
        let written = buffer.write("日本a", at: 1, 0)
        #expect(written == 5)
        #expect(buffer[1, 0].width == 2)
        #expect(buffer[2, 0].isContinuation)
        #expect(buffer.lines == [" 日本a    ", "          "])
    }

    @Test func aWideCharacterThatWouldCrossTheLimitStopsTheText() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        #expect(buffer.write("ab日本", at: 0, 0, maxWidth: 5) == 4)
        #expect(buffer.lines == ["ab日  "])
        var edge = ScreenBuffer(width: 3, height: 1)
        #expect(edge.write("a日本", at: 0, 0) == 3)
        #expect(edge.write("本", at: 2, 0) == 0)  // would cross the screen's edge
        #expect(edge.lines == ["a日"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.write("日本", at: 0, 0)
        buffer.write("x", at: 1, 0)  // the second half of 日
        #expect(buffer.lines == [" x本  "])
        buffer.write("y", at: 2, 0)  // the first half of 本
        #expect(buffer.lines == [" xy   "])
        #expect(!buffer[3, 0].isContinuation)
    }

    @Test func controlCharactersAreLeftOut() {
        var buffer = ScreenBuffer(width: 8, height: 1)
        buffer.write("a\u{1B}[31mb\tc", at: 0, 0)
        #expect(buffer.lines == ["a[31mbc "])
    }

    @Test func combiningMarksAndZWJSequencesStayOneCell() {
        var buffer = ScreenBuffer(width: 8, height: 1)
        #expect(buffer.write("e\u{301}👩‍🚀!", at: 0, 0) == 4)
        #expect(buffer.lines == ["e\u{301}👩‍🚀!    "])
    }

    @Test func wrapping() {
        #expect(TextWrapping.lines(of: "the quick brown fox", width: 9) == ["the quick", "brown fox"])
        #expect(TextWrapping.lines(of: "日本語のテキスト", width: 6) == ["日本語", "のテキ", "スト"])
        #expect(TextWrapping.lines(of: "abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(TextWrapping.lines(of: "日", width: 1) == [""])
    }

    @Test func listWindowMovesOnlyAsMuchAsItMust() {
        var window = ListWindow()
        window = window.scrolled(toShow: 5, count: 100, height: 10)
        #expect(window.offset == 0)
        window = window.scrolled(toShow: 12, count: 100, height: 10)
        #expect(window.offset == 3)
        window = window.scrolled(toShow: 8, count: 100, height: 10)
        #expect(window.offset == 3)
        window = window.scrolled(toShow: 99, count: 100, height: 10)
        #expect(window.offset == 90)
        #expect(window.visibleRows(count: 100, height: 10) == 90..<100)
        #expect(window.scrolled(toShow: nil, count: 5, height: 10).offset == 0)
    }
}
