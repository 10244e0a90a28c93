import Testing

@testable import TerminalUI

@Suite("TextEditing")
struct TextEditingTests {
    func type(
        _ events: [InputEvent],
        into text: String = "",
        cursor: Int? = nil,
        limit: Int = .max
    )
        -> (text: String, cursor: Int, results: [TextEditing.Result])
    {
        var text = text
        var cursor = cursor ?? text.count
        let results = events.map { TextEditing.apply($0, to: &text, cursor: &cursor, limit: limit) }
        return (text, cursor, results)
    }

    @Test func typingInsertsAtTheCursor() {
        let edited = type(
            [.key(.character("X")), .key(.left), .key(.left), .key(.character("日"))],
            into: "abc",
            cursor: 1
        )
        #expect(edited.text == "日aXbc")
        #expect(edited.cursor == 1)
    }

    @Test func backspaceAndDelete() {
        #expect(type([.key(.backspace)], into: "日本語").text == "日本")
        #expect(type([.key(.home), .key(.delete)], into: "日本語").text == "本語")
        #expect(type([.key(.home), .key(.backspace)], into: "ab").results == [.moved, .moved])
        #expect(type([.key(.character("w"), .control)], into: "one two  ").text == "one ")
        #expect(type([.key(.character("u"), .control)], into: "abc def", cursor: 4).text == "def")
    }

    @Test func aPasteIsOneLineAndCutToTheLimit() {
        let pasted = type([.paste("line one\nline\ttwo\u{7}")], into: "> ", limit: 12)
        #expect(pasted.text == "> line one l")
        #expect(pasted.results == [.truncated(dropped: 7)])
        let megabyte = type([.paste(String(repeating: "あ", count: 1_000_000))], limit: 500)
        #expect(megabyte.text.count == 500)
        #expect(megabyte.results == [.truncated(dropped: 999_500)])
    }

    @Test func keysThatAreNotEditingAreIgnored() {
        #expect(
            type([.key(.enter), .key(.up), .key(.character("c"), .control)]).results == [.ignored, .ignored, .ignored]
        )
    }

    @Test func aTypedCombiningMarkJoinsItsCharacterAndTheCursorStaysRight() {
        let edited = type([.key(.character("\u{301}")), .key(.character("c"))], into: "ab", cursor: 1)
        #expect(edited.text == "a\u{301}cb")
        #expect(edited.cursor == 2)
    }
}
