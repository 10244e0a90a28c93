/// Turns the bytes a terminal sends into ``InputEvent``s.
///
/// A pure value: feed it bytes as they arrive with ``decode(_:)``; a
/// sequence split across reads (an arrow key's `ESC [ A` in two reads, a
/// Japanese character's three UTF-8 bytes in two) is kept until the rest
/// comes. A lone `ESC` is ambiguous (the Escape key, or the start of a
/// sequence still on its way): it stays pending until the reader, after a
/// short quiet time (~50 ms), calls ``flush()``. The decoder never reads a
/// clock.
///
/// ```swift
/// var decoder = InputDecoder()
/// decoder.decode(Array("\u{1B}[".utf8))   // []: incomplete
/// decoder.decode(Array("A".utf8))         // [.key(.up)]
/// ```
///
/// Bytes that are not UTF-8 are dropped. Legacy control bytes map as
/// terminals send them: Tab (0x09, Ctrl-I), Enter (0x0D, and 0x0A),
/// Backspace (0x7F, and 0x08 Ctrl-H), Escape (0x1B, Ctrl-[), and 0x01–0x1A
/// as Ctrl and a letter. A bracketed paste is one ``InputEvent/paste(_:)``.
public struct InputDecoder: Sendable {
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: the text so far, as bytes.
    private var paste: [UInt8]?

    /// The largest paste kept; the rest of a larger one is dropped (the
    /// fields it goes into are far smaller).
    public let maximumPasteBytes: Int

    /// A decoder with nothing pending; a paste past `maximumPasteBytes` (4 MiB
    /// by default) is cut there.
    public init(maximumPasteBytes: Int = 4 << 20) {
        self.maximumPasteBytes = maximumPasteBytes
    }

    /// Whether bytes are waiting for the rest of their sequence: the reader
    /// calls ``flush()`` when no more arrive in a short while.
    public var hasPendingBytes: Bool { !pending.isEmpty && paste == nil }

    /// Whether a bracketed paste has started and not ended: the reader calls
    /// ``endPaste()`` when no more bytes arrive for a while (a terminal that
    /// never sends the end marker must not swallow every key after it).
    public var isInPaste: Bool { paste != nil }

    /// Ends a bracketed paste whose end marker did not come: what arrived is
    /// the paste. Does nothing outside a paste.
    public mutating func endPaste() -> [InputEvent] {
        guard let bytes = paste else { return [] }
        var all = bytes
        all.append(contentsOf: pending.prefix(max(0, maximumPasteBytes - bytes.count)))
        paste = nil
        pending = []
        return [.paste(Self.text(droppingInvalidUTF8: all))]
    }

    /// Decodes `bytes`, returning the events they complete.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
        pending.append(contentsOf: bytes)
        var events: [InputEvent] = []
        var index = 0
        while index < pending.count {
            if paste != nil {
                guard let consumed = consumePaste(from: index, into: &events) else { break }
                index = consumed
                continue
            }
            guard let (event, length) = decodeOne(at: index) else { break }
            index += length
            if let event { events.append(event) }
        }
        pending.removeFirst(index)
        return events
    }

    /// Ends what is pending as if no more bytes will follow: a lone `ESC`
    /// is the Escape key; an `ESC` before an incomplete sequence is Escape
    /// and the rest is decoded on its own; an incomplete UTF-8 character is
    /// dropped. A bracketed paste in progress is left alone.
    public mutating func flush() -> [InputEvent] {
        var events: [InputEvent] = []
        while paste == nil, !pending.isEmpty {
            // Only an ESC or the lead byte of a UTF-8 character can wait.
            if pending.removeFirst() == 0x1B { events.append(.key(.escape)) }
            let rest = pending
            pending = []
            events += decode(rest)
        }
        return events
    }

    // MARK: Decoding one event

    /// The event at `index` and its length in bytes; nil when the bytes
    /// there are incomplete. A nil event is a byte or sequence to skip.
    private mutating func decodeOne(at index: Int) -> (InputEvent?, Int)? {
        let byte = pending[index]
        switch byte {
        case 0x1B:
            return decodeEscape(at: index)
        case 0x0D, 0x0A:
            return (.key(.enter), 1)
        case 0x09:
            return (.key(.tab), 1)
        case 0x7F, 0x08:
            return (.key(.backspace), 1)
        case 0x00:
            return (.key(KeyPress(.character(" "), modifiers: .control)), 1)
        case 0x01...0x1A:
            return (.key(KeyPress(.character(Character(Unicode.Scalar(byte + 0x60))), modifiers: .control)), 1)
        case 0x1C...0x1F:
            // Ctrl-\ ] ^ _
            return (.key(KeyPress(.character(Character(Unicode.Scalar(byte + 0x40))), modifiers: .control)), 1)
        default:
            guard let (scalar, length) = decodeUTF8(at: index) else { return nil }
            guard let scalar else { return (nil, length) }
            return (.key(KeyPress(.character(Character(scalar)))), length)
        }
    }

    /// A UTF-8 scalar at `index`: nil when incomplete, a nil scalar (and the
    /// bytes to skip) when invalid.
    private func decodeUTF8(at index: Int) -> (Unicode.Scalar?, Int)? {
        let lead = pending[index]
        let length: Int
        switch lead {
        case 0x20...0x7E: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (nil, 1)  // a continuation byte or an invalid lead
        }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<length {
            guard index + offset < pending.count else { return nil }
            let byte = pending[index + offset]
            guard byte & 0xC0 == 0x80 else { return (nil, offset) }  // skip the broken start, keep the rest
            value = value << 6 | UInt32(byte & 0x3F)
        }
        // Overlong forms and surrogates are not characters.
        let minimum: UInt32 = [0, 0, 0x80, 0x800, 0x10000][length]
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, length) }
        return (scalar, length)
    }

    private mutating func decodeEscape(at index: Int) -> (InputEvent?, Int)? {
        guard index + 1 < pending.count else { return nil }
        let next = pending[index + 1]
        switch next {
        case UInt8(ascii: "["):
            return decodeCSI(at: index)
        case UInt8(ascii: "O"):
            guard index + 2 < pending.count else { return nil }
            let key: Key? =
                switch pending[index + 2] {
                case UInt8(ascii: "A"): .up
                case UInt8(ascii: "B"): .down
                case UInt8(ascii: "C"): .right
                case UInt8(ascii: "D"): .left
                case UInt8(ascii: "H"): .home
                case UInt8(ascii: "F"): .end
                case UInt8(ascii: "M"): .enter
                case UInt8(ascii: "P"): .function(1)
                case UInt8(ascii: "Q"): .function(2)
                case UInt8(ascii: "R"): .function(3)
                case UInt8(ascii: "S"): .function(4)
                default: nil
                }
            if let key { return (.key(key), 3) }
            return (.unknown(Array(pending[index..<index + 3])), 3)
        case 0x1B:
            // ESC ESC: the first is the Escape key.
            return (.key(.escape), 1)
        default:
            // Alt and a key: the terminal sends ESC before it.
            guard let (event, length) = decodeOne(at: index + 1) else { return nil }
            guard case let .key(press)? = event else { return (event, 1 + length) }
            return (.key(KeyPress(press.key, modifiers: press.modifiers.union(.alt))), 1 + length)
        }
    }

    /// `ESC [ parameters intermediates final`.
    private mutating func decodeCSI(at index: Int) -> (InputEvent?, Int)? {
        var end = index + 2
        while end < pending.count, !(0x40...0x7E).contains(pending[end]) {
            // Parameter (0x30–0x3F) and intermediate (0x20–0x2F) bytes only.
            guard (0x20...0x3F).contains(pending[end]) else {
                return (.unknown(Array(pending[index..<end])), end - index)
            }
            end += 1
        }
        guard end < pending.count else { return nil }
        let length = end - index + 1
        let final = pending[end]
        let parameterText = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
        let parameters = parameterText.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        let modifiers = parameters.count > 1 ? KeyModifiers(xtermParameter: parameters[1] ?? 1) : []
        let unknown = InputEvent.unknown(Array(pending[index..<index + length]))

        let key: Key?
        switch final {
        case UInt8(ascii: "A"): key = .up
        case UInt8(ascii: "B"): key = .down
        case UInt8(ascii: "C"): key = .right
        case UInt8(ascii: "D"): key = .left
        case UInt8(ascii: "H"): key = .home
        case UInt8(ascii: "F"): key = .end
        case UInt8(ascii: "Z"): return (.key(.backTab), length)
        case UInt8(ascii: "P"): key = .function(1)
        case UInt8(ascii: "Q"): key = .function(2)
        case UInt8(ascii: "R"): key = .function(3)
        case UInt8(ascii: "S"): key = .function(4)
        case UInt8(ascii: "~"):
            switch parameters.first ?? nil {
            case 1, 7: key = .home
            case 2: key = .insert
            case 3: key = .delete
            case 4, 8: key = .end
            case 5: key = .pageUp
            case 6: key = .pageDown
            case 11: key = .function(1)
            case 12: key = .function(2)
            case 13: key = .function(3)
            case 14: key = .function(4)
            case 15: key = .function(5)
            case 17: key = .function(6)
            case 18: key = .function(7)
            case 19: key = .function(8)
            case 20: key = .function(9)
            case 21: key = .function(10)
            case 23: key = .function(11)
            case 24: key = .function(12)
            case 200:
                paste = []
                return (nil, length)
            default: key = nil
            }
        default: key = nil
        }
        guard let key else { return (unknown, length) }
        return (.key(KeyPress(key, modifiers: modifiers)), length)
    }

    /// Inside a bracketed paste: takes bytes up to `ESC [ 201 ~`, returning
    /// the index after what was consumed, or nil to wait for more.
    private mutating func consumePaste(from index: Int, into events: inout [InputEvent]) -> Int? {
        let terminator: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~
        var position = index
        while position < pending.count {
            if pending[position] == 0x1B {
                let available = min(terminator.count, pending.count - position)
                if pending[position..<position + available].elementsEqual(terminator.prefix(available)) {
                    guard available == terminator.count else { break }  // the end marker is split: wait
                    appendToPaste(pending[index..<position])
                    events.append(.paste(Self.text(droppingInvalidUTF8: paste ?? [])))
                    paste = nil
                    return position + terminator.count
                }
            }
            position += 1
        }
        appendToPaste(pending[index..<position])
        return position > index ? position : nil
    }

    /// `bytes` as text, bytes that are not UTF-8 left out (as typed ones are).
    static func text(droppingInvalidUTF8 bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded): scalars.append(Unicode.UTF8.decode(encoded))
            case .error: continue
            case .emptyInput: return String(scalars)
            }
        }
    }

    private mutating func appendToPaste(_ bytes: ArraySlice<UInt8>) {
        let room = maximumPasteBytes - (paste?.count ?? 0)
        guard room > 0 else { return }
        paste?.append(contentsOf: bytes.prefix(room))
    }
}
