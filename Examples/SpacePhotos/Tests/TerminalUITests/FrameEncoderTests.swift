import Testing

@testable import TerminalUI

@Suite("FrameEncoder")
struct FrameEncoderTests {
    let encoder = FrameEncoder(colors: .trueColor)

    /// Escapes shown as `␛`, so expectations read as text.
    func visible(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "␛")
    }

    @Test func aFullFrameClearsThenDrawsEveryCellThatIsNotBlank() {
        var buffer = ScreenBuffer(width: 4, height: 2)
        buffer.write("a c", at: 0, 0)
        buffer.write("d", at: 3, 1, style: .bold)
        buffer.write(" ", at: 0, 1, style: .reverse)  // a space with a style is not blank
        #expect(
            visible(encoder.encode(buffer, over: nil))
                == "␛[?2026h␛[0m␛[H␛[2Ja␛[1;3Hc␛[2;1H␛[0;7m ␛[2;4H␛[0;1md␛[0m␛[?2026l"
        )
    }

    @Test func anUnchangedFrameWritesNothing() {
        var buffer = ScreenBuffer(width: 3, height: 2)
        buffer.write("ab", at: 0, 0)
        #expect(encoder.encode(buffer, over: buffer).isEmpty)
    }

    @Test func onlyChangedCellsAreSentAndTheCursorMovesOnlyWhenItMust() {
        var before = ScreenBuffer(width: 10, height: 3)
        before.write("hello", at: 0, 1)
        var after = before
        after.write("jello", at: 0, 1)  // one cell changes
        after.write("!", at: 9, 2)
        #expect(visible(encoder.encode(after, over: before)) == "␛[?2026h␛[2;1Hj␛[3;10H!␛[?2026l")
        var adjacent = before
        adjacent.write("HE", at: 0, 1)  // two neighbours: one move
        #expect(visible(encoder.encode(adjacent, over: before)) == "␛[?2026h␛[2;1HHE␛[?2026l")
    }

    @Test func stylesAreSentOnlyWhenTheyChange() {
        let before = ScreenBuffer(width: 6, height: 1)
        var after = before
        after.write("ab", at: 0, 0, style: CellStyle(foreground: .red, attributes: .bold))
        after.write("c", at: 2, 0, style: CellStyle(foreground: .rgb(1, 2, 3), attributes: .bold))
        after.write("d", at: 3, 0)
        #expect(visible(encoder.encode(after, over: before)) == "␛[?2026h␛[1;1H␛[0;1;31mab␛[38;2;1;2;3mc␛[0md␛[?2026l")
    }

    @Test func rgbBecomesTheNearestIndexedColourWithout24BitColour() {
        var after = ScreenBuffer(width: 2, height: 1)
        after.write("x", at: 0, 0, style: CellStyle(foreground: .rgb(255, 0, 0), background: .rgb(128, 128, 128)))
        let indexed = FrameEncoder(colors: .indexed256)
        #expect(
            visible(indexed.encode(after, over: ScreenBuffer(width: 2, height: 1)))
                == "␛[?2026h␛[1;1H␛[38;5;196;48;5;244mx␛[0m␛[?2026l"
        )
        #expect(TerminalColor.nearestIndexed(red: 0, green: 0, blue: 0) == 16)
        #expect(TerminalColor.nearestIndexed(red: 255, green: 255, blue: 255) == 231)
        #expect(TerminalColor.nearestIndexed(red: 95, green: 135, blue: 175) == 67)
    }

    @Test func aWideCellTurningNarrowSendsItsSecondColumnToo() {
        var before = ScreenBuffer(width: 4, height: 1)
        before.write("日", at: 0, 0)
        var after = ScreenBuffer(width: 4, height: 1)
        after.write("ab", at: 0, 0)
        #expect(visible(encoder.encode(after, over: before)) == "␛[?2026h␛[1;1Hab␛[?2026l")
        var back = after
        back.write("日", at: 0, 0)
        #expect(visible(encoder.encode(back, over: after)) == "␛[?2026h␛[1;1H日␛[?2026l")
    }

    @Test func theLastColumnLeavesTheCursorUnknown() {
        let before = ScreenBuffer(width: 3, height: 2)
        var after = before
        after.write("c", at: 2, 0)
        after.write("d", at: 0, 1)
        #expect(visible(encoder.encode(after, over: before)) == "␛[?2026h␛[1;3Hc␛[2;1Hd␛[?2026l")
    }

    @Test func aNewSizeRedrawsEverything() {
        let small = ScreenBuffer(width: 2, height: 1)
        let large = ScreenBuffer(width: 3, height: 1)
        #expect(visible(encoder.encode(large, over: small)) == "␛[?2026h␛[0m␛[H␛[2J␛[?2026l")
    }

    @Test func afterAnEmojiTheNextCellIsPlacedExplicitly() {
        let before = ScreenBuffer(width: 6, height: 1)
        var after = before
        after.write("❤\u{FE0F}x", at: 0, 0)  // terminals disagree on its width
        #expect(visible(encoder.encode(after, over: before)) == "␛[?2026h␛[1;1H❤\u{FE0F}␛[1;3Hx␛[?2026l")
        var japanese = before
        japanese.write("日本", at: 0, 0)  // one scalar, East Asian wide: no doubt
        #expect(visible(encoder.encode(japanese, over: before)) == "␛[?2026h␛[1;1H日本␛[?2026l")
    }
}
