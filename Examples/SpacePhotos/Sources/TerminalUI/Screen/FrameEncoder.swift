/// Turns a frame into the bytes that bring the terminal from the previous
/// frame to it: only the cells that changed, the cursor moved only where the
/// next changed cell is not where the last write left it, and style codes
/// only where the style changes (ratatui's diff, crossterm's encoding).
///
/// ```swift
/// var encoder = FrameEncoder(colors: .trueColor)
/// let bytes = encoder.encode(next, over: previous)   // nil previous: a full redraw
/// ```
///
/// Each frame is wrapped in synchronized-update mode (DEC mode 2026), so a
/// terminal that supports it shows it at once instead of as it arrives;
/// others ignore the mode.
public struct FrameEncoder: Sendable {
    /// What colours the terminal can show.
    public enum ColorSupport: Sendable, Equatable {
        /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
        case trueColor
        /// The 256 indexed colours: RGB is sent as the nearest of them.
        case indexed256

        /// What the environment says: `COLORTERM` is how terminals announce
        /// 24-bit colour.
        public static func from(environment: [String: String]) -> ColorSupport {
            let value = environment["COLORTERM"]?.lowercased() ?? ""
            return value == "truecolor" || value == "24bit" ? .trueColor : .indexed256
        }
    }

    public var colors: ColorSupport

    public init(colors: ColorSupport) {
        self.colors = colors
    }

    /// The bytes that turn the screen showing `previous` into `next`. With
    /// no `previous`, or one of another size, the screen is cleared and
    /// drawn whole. Empty when nothing changed.
    public func encode(_ next: ScreenBuffer, over previous: ScreenBuffer?) -> [UInt8] {
        var output = Output(colors: colors)
        let full = previous == nil || previous?.width != next.width || previous?.height != next.height
        if full {
            output.append("\u{1B}[0m\u{1B}[H\u{1B}[2J")
            output.style = .plain
            output.cursor = (0, 0)
        }
        next.cells.withUnsafeBufferPointer { nextCells in
            let previousCells = full ? nil : previous?.cells
            for index in nextCells.indices {
                let cell = nextCells[index]
                // A continuation is drawn by its wide character. When a wide
                // character turns narrow, the cell after it changes from a
                // continuation to something else, so it is sent too (some
                // terminals would leave the old half behind).
                guard !cell.isContinuation else { continue }
                if let previousCells, previousCells[index] == cell { continue }
                output.draw(cell, x: index % next.width, y: index / next.width, screenWidth: next.width)
            }
        }
        guard !output.bytes.isEmpty else { return [] }
        if output.style != .plain { output.append("\u{1B}[0m") }
        return Array("\u{1B}[?2026h".utf8) + output.bytes + Array("\u{1B}[?2026l".utf8)
    }

    /// The byte stream of one frame, with what the terminal's cursor and pen are now.
    struct Output {
        var bytes: [UInt8] = []
        let colors: ColorSupport
        /// Where the next character will be drawn; nil when unknown (after
        /// the last column, where terminals differ).
        var cursor: (x: Int, y: Int)?
        var style = CellStyle.plain

        init(colors: ColorSupport) {
            self.colors = colors
            bytes.reserveCapacity(4096)
        }

        mutating func append(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        mutating func appendNumber(_ value: Int) {
            if value >= 10 { appendNumber(value / 10) }
            bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
        }

        mutating func draw(_ cell: Cell, x: Int, y: Int, screenWidth: Int) {
            if let cursor, cursor == (x, y) {
                // Already there: the last character left the cursor here.
            } else {
                // CUP is 1-based.
                bytes.append(contentsOf: [0x1B, UInt8(ascii: "[")])
                appendNumber(y + 1)
                bytes.append(UInt8(ascii: ";"))
                appendNumber(x + 1)
                bytes.append(UInt8(ascii: "H"))
            }
            if cell.style != style {
                applyStyle(cell.style)
            }
            var widthIsCertain = true
            if let grapheme = cell.grapheme {
                if let ascii = grapheme.asciiValue {
                    bytes.append(ascii)
                } else {
                    bytes.append(contentsOf: grapheme.utf8)
                    // Terminals disagree on the width of emoji and of
                    // clusters: after one, place the next cell explicitly.
                    let scalars = grapheme.unicodeScalars
                    widthIsCertain = scalars.count == 1 && scalars.first?.properties.isEmoji != true
                }
            } else {
                bytes.append(UInt8(ascii: " "))
            }
            let next = x + max(1, Int(cell.width))
            cursor = widthIsCertain && next < screenWidth ? (next, y) : nil
        }

        mutating func applyStyle(_ new: CellStyle) {
            // Attributes cannot be switched off one by one portably: a change
            // of attributes starts from a reset.
            let reset = new.attributes != style.attributes
            bytes.append(contentsOf: [0x1B, UInt8(ascii: "[")])
            var first = true
            func separator(_ bytes: inout [UInt8]) {
                if !first { bytes.append(UInt8(ascii: ";")) }
                first = false
            }
            if reset {
                separator(&bytes)
                bytes.append(UInt8(ascii: "0"))
                let codes: [(CellStyle.Attributes, UInt8)] = [(.bold, 1), (.dim, 2), (.italic, 3), (.underline, 4), (.reverse, 7)]
                for (attribute, code) in codes where new.attributes.contains(attribute) {
                    separator(&bytes)
                    appendNumber(Int(code))
                }
            }
            if reset ? new.foreground != .default : new.foreground != style.foreground {
                separator(&bytes)
                appendColor(new.foreground, base: 30)
            }
            if reset ? new.background != .default : new.background != style.background {
                separator(&bytes)
                appendColor(new.background, base: 40)
            }
            bytes.append(UInt8(ascii: "m"))
            style = new
        }

        /// SGR parameters for a colour: `base` is 30 (foreground) or 40 (background).
        mutating func appendColor(_ color: TerminalColor, base: Int) {
            switch color {
            case .default:
                appendNumber(base + 9)
            case let .indexed(index) where index < 8:
                appendNumber(base + Int(index))
            case let .indexed(index) where index < 16:
                appendNumber(base + 60 + Int(index) - 8)
            case let .indexed(index):
                appendNumber(base + 8)
                append(";5;")
                appendNumber(Int(index))
            case let .rgb(r, g, b):
                appendNumber(base + 8)
                if colors == .trueColor {
                    append(";2;")
                    appendNumber(Int(r))
                    bytes.append(UInt8(ascii: ";"))
                    appendNumber(Int(g))
                    bytes.append(UInt8(ascii: ";"))
                    appendNumber(Int(b))
                } else {
                    append(";5;")
                    appendNumber(Int(TerminalColor.nearestIndexed(red: r, green: g, blue: b)))
                }
            }
        }
    }
}
