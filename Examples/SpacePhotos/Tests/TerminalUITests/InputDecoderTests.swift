import Testing

@testable import TerminalUI

@Suite("InputDecoder")
struct InputDecoderTests {
    static let esc: UInt8 = 0x1B

    /// One row of the table: bytes as they arrive (each inner array one
    /// read), and the events they decode to once the reads are done.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var reads: [[UInt8]]
        var events: [InputEvent]
        var testDescription: String { name }

        init(_ name: String, _ reads: [[UInt8]], _ events: [InputEvent]) {
            self.name = name
            self.reads = reads
            self.events = events
        }

        init(_ name: String, _ text: String, _ events: [InputEvent]) {
            self.init(name, [Array(text.utf8)], events)
        }
    }

    static let cases: [Case] = {
        var cases: [Case] = []
        cases.append(Case("ASCII letters", "ab", [.key(.character("a")), .key(.character("b"))]))
        cases.append(Case("Japanese in one read", "日本", [.key(.character("日")), .key(.character("本"))]))
        cases.append(Case("a UTF-8 character split across reads", [[0xE6, 0x97], [0xA5]], [.key(.character("日"))]))
        cases.append(
            Case("a four-byte emoji split in three", [[0xF0], [0x9F, 0x9A], [0x80]], [.key(.character("🚀"))])
        )
        cases.append(Case("Enter is CR", [[0x0D]], [.key(.enter)]))
        cases.append(Case("LF is Enter too", [[0x0A]], [.key(.enter)]))
        cases.append(Case("Tab and Ctrl-I are one byte", [[0x09]], [.key(.tab)]))
        cases.append(Case("Backspace is DEL", [[0x7F]], [.key(.backspace)]))
        cases.append(Case("Ctrl-H is Backspace", [[0x08]], [.key(.backspace)]))
        cases.append(Case("Ctrl-C", [[0x03]], [.key(.character("c"), .control)]))
        cases.append(Case("Ctrl-Z", [[0x1A]], [.key(.character("z"), .control)]))
        cases.append(
            Case(
                "arrows",
                [[esc, 0x5B, 0x41, esc, 0x5B, 0x42, esc, 0x5B, 0x43, esc, 0x5B, 0x44]],
                [.key(.up), .key(.down), .key(.right), .key(.left)]
            )
        )
        cases.append(Case("an arrow split after ESC", [[esc], [0x5B, 0x41]], [.key(.up)]))
        cases.append(Case("an arrow split after ESC [", [[esc, 0x5B], [0x41]], [.key(.up)]))
        cases.append(Case("application-mode arrows (SS3)", [[esc, 0x4F, 0x41]], [.key(.up)]))
        cases.append(Case("Home and End, xterm", [[esc, 0x5B, 0x48, esc, 0x5B, 0x46]], [.key(.home), .key(.end)]))
        cases.append(Case("Home and End, VT", "\u{1B}[1~\u{1B}[4~", [.key(.home), .key(.end)]))
        cases.append(Case("Home and End, rxvt", "\u{1B}[7~\u{1B}[8~", [.key(.home), .key(.end)]))
        cases.append(
            Case(
                "PgUp, PgDn, Delete, Insert",
                "\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[2~",
                [.key(.pageUp), .key(.pageDown), .key(.delete), .key(.insert)]
            )
        )
        cases.append(
            Case(
                "a tilde key split in its number",
                [Array("\u{1B}[".utf8), Array("6".utf8), Array("~".utf8)],
                [.key(.pageDown)]
            )
        )
        cases.append(Case("Shift-Tab", "\u{1B}[Z", [.key(.backTab)]))
        cases.append(Case("Ctrl-Up", "\u{1B}[1;5A", [.key(.up, .control)]))
        cases.append(Case("Alt-Shift-Right", "\u{1B}[1;4C", [.key(.right, [.alt, .shift])]))
        cases.append(Case("F1 (SS3) and F5", "\u{1B}OP\u{1B}[15~", [.key(.function(1)), .key(.function(5))]))
        cases.append(Case("Alt-b", "\u{1B}b", [.key(.character("b"), .alt)]))
        cases.append(Case("Alt and a Japanese character", "\u{1B}日", [.key(.character("日"), .alt)]))
        cases.append(Case("ESC ESC: the first is Escape", [[esc, esc, 0x5B, 0x41]], [.key(.escape), .key(.up)]))
        cases.append(
            Case(
                "a bracketed paste is one event",
                "\u{1B}[200~q hello\r日本\u{1B}[201~x",
                [.paste("q hello\r日本"), .key(.character("x"))]
            )
        )
        cases.append(
            Case(
                "a paste split everywhere, end marker included",
                [
                    Array("\u{1B}[20".utf8), Array("0~ab".utf8), [0xE6], [0x97, 0xA5], Array("\u{1B}[2".utf8),
                    Array("01~".utf8),
                ],
                [.paste("ab日")]
            )
        )
        cases.append(
            Case("a paste holding ESC that is not its end", "\u{1B}[200~a\u{1B}b\u{1B}[201~", [.paste("a\u{1B}b")])
        )
        cases.append(
            Case(
                "bytes that are not UTF-8 are dropped",
                [[0xFF, 0x61, 0xC0, 0xAF, 0x80, 0x62]],
                [.key(.character("a")), .key(.character("b"))]
            )
        )
        cases.append(
            Case("a lead byte followed by ASCII drops the lead only", [[0xE6, 0x61]], [.key(.character("a"))])
        )
        cases.append(
            Case("a surrogate encoded in UTF-8 is dropped", [[0xED, 0xA0, 0x80, 0x61]], [.key(.character("a"))])
        )
        cases.append(Case("an unknown CSI sequence (focus in)", "\u{1B}[I", [.unknown([esc, 0x5B, 0x49])]))
        cases.append(
            Case("an SGR mouse report is unknown, not keys", "\u{1B}[<0;3;4M", [.unknown(Array("\u{1B}[<0;3;4M".utf8))])
        )
        return cases
    }()

    @Test(arguments: cases)
    func decodes(_ row: Case) {
        var decoder = InputDecoder()
        var events: [InputEvent] = []
        for read in row.reads {
            events += decoder.decode(read)
        }
        #expect(events == row.events)
        #expect(!decoder.hasPendingBytes)
    }

    @Test func aLoneEscapeWaitsForFlush() {
        var decoder = InputDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.hasPendingBytes)
        #expect(decoder.flush() == [.key(.escape)])
        #expect(!decoder.hasPendingBytes)
    }

    @Test func anIncompleteSequenceFlushesAsEscapeAndItsRest() {
        var decoder = InputDecoder()
        #expect(decoder.decode(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.flush() == [.key(.escape), .key(.character("["))])
    }

    @Test func anIncompleteCharacterIsDroppedByFlush() {
        var decoder = InputDecoder()
        #expect(decoder.decode([0xE6, 0x97]).isEmpty)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.decode(Array("a".utf8)) == [.key(.character("a"))])
    }

    @Test func flushLeavesAPasteInProgressAlone() {
        var decoder = InputDecoder()
        #expect(decoder.decode(Array("\u{1B}[200~abc".utf8)).isEmpty)
        #expect(!decoder.hasPendingBytes)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.decode(Array("\u{1B}[201~".utf8)) == [.paste("abc")])
    }

    @Test func aPasteLongerThanTheLimitIsCut() {
        var decoder = InputDecoder(maximumPasteBytes: 10)
        let events = decoder.decode(Array(("\u{1B}[200~" + String(repeating: "x", count: 100) + "\u{1B}[201~").utf8))
        #expect(events == [.paste(String(repeating: "x", count: 10))])
    }

    @Test func aMegabytePasteArrivingInReadsIsOneEvent() {
        var decoder = InputDecoder()
        let text = String(repeating: "あいう", count: 116_508)  // ≈ 1 MB of UTF-8
        let bytes = Array(("\u{1B}[200~" + text + "\u{1B}[201~").utf8)
        var events: [InputEvent] = []
        var start = 0
        while start < bytes.count {
            // 4,093-byte reads split characters and the end marker alike.
            let end = min(bytes.count, start + 4_093)
            events += decoder.decode(bytes[start..<end])
            start = end
        }
        #expect(events == [.paste(text)])
    }

    @Test func aPasteWithoutItsEndMarkerEndsWhenTheReaderSaysSo() {
        var decoder = InputDecoder()
        #expect(decoder.decode(Array("\u{1B}[200~half a paste".utf8)).isEmpty)
        #expect(decoder.isInPaste)
        #expect(decoder.endPaste() == [.paste("half a paste")])
        #expect(!decoder.isInPaste)
        #expect(decoder.decode([0x03]) == [.key(.character("c"), .control)], "keys work again")
    }

    @Test func aPasteDropsBytesThatAreNotUTF8ButKeepsAReplacementCharacterThatWasPasted() {
        var decoder = InputDecoder()
        let bytes: [UInt8] = Array("\u{1B}[200~a".utf8) + [0xFF, 0xC0] + Array("b\u{FFFD}c\u{1B}[201~".utf8)
        #expect(decoder.decode(bytes) == [.paste("ab\u{FFFD}c")])
    }
}
