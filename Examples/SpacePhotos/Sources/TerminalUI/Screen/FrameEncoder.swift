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

    /// How colours are sent: RGB as it is, or as the nearest indexed colour.
    public var colors: ColorSupport

    /// An encoder for a terminal showing `colors`; it keeps no state between frames.
    public init(colors: ColorSupport) {
        self.colors = colors
    }

    /// The bytes that turn the screen showing `previous` into `next`. With
    /// no `previous`, or one of another size, the screen is cleared and
    /// drawn whole. Empty when nothing changed.
    public func encode(_ next: ScreenBuffer, over previous: ScreenBuffer?) -> [UInt8] {
        var output = Output(colors: colors)
        output.append("\u{1B}[?2026h")
        let start = output.bytes.count
        let full = previous == nil || previous?.width != next.width || previous?.height != next.height
        if full {
            output.append("\u{1B}[0m\u{1B}[H\u{1B}[2J" as StaticString)
            output.style = .plain
            output.cursor = (0, 0)
        }
        output.bytes.reserveCapacity(next.cells.count * (full ? 24 : 4))
        let blank = Cell.blank()
        next.cells.withUnsafeBufferPointer { nextCells in
            let previousCells = full ? nil : previous?.cells
            for index in nextCells.indices {
                let cell = nextCells[index]
                // A continuation is drawn by its wide character. When a wide
                // character turns narrow, the cell after it changes from a
                // continuation to something else, so it is sent too (some
                // terminals would leave the old half behind).
                guard !cell.isContinuation else { continue }
                if let previousCells {
                    if previousCells[index] == cell { continue }
                } else if cell == blank {
                    // A full redraw starts from a cleared screen: blank cells are already there.
                    continue
                }
                output.draw(cell, x: index % next.width, y: index / next.width, screenWidth: next.width)
            }
        }
        guard output.bytes.count > start else { return [] }
        if output.style != .plain { output.append("\u{1B}[0m" as StaticString) }
        output.append("\u{1B}[?2026l" as StaticString)
        return output.bytes
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
        }

        mutating func append(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func append(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        /// Decimal digits, by arithmetic: this runs several times per cell of
        /// an image.
        mutating func appendNumber(_ value: Int) {
            let zero = UInt8(ascii: "0")
            if value < 10, value >= 0 {
                bytes.append(zero + UInt8(value))
            } else if value < 100, value >= 0 {
                bytes.append(zero + UInt8(value / 10))
                bytes.append(zero + UInt8(value % 10))
            } else if value < 1_000, value >= 0 {
                bytes.append(zero + UInt8(value / 100))
                bytes.append(zero + UInt8(value / 10 % 10))
                bytes.append(zero + UInt8(value % 10))
            } else {
                append(String(value))
            }
        }

        mutating func draw(_ cell: Cell, x: Int, y: Int, screenWidth: Int) {
            if let cursor, cursor == (x, y) {
                // Already there: the last character left the cursor here.
            } else {
                // CUP is 1-based.
                append("\u{1B}[")
                appendNumber(y + 1)
                bytes.append(UInt8(ascii: ";"))
                appendNumber(x + 1)
                bytes.append(UInt8(ascii: "H"))
            }
            if cell.style != style {
                applyStyle(cell.style)
            }
            cell.appendUTF8(to: &bytes)
            let next = x + max(1, Int(cell.width))
            // Terminals disagree on the width of emoji and of clusters: after
            // one, the next cell is placed explicitly.
            cursor = !cell.hasUncertainWidth && next < screenWidth ? (next, y) : nil
        }

        mutating func applyStyle(_ new: CellStyle) {
            // Attributes cannot be switched off one by one portably: a change
            // of attributes starts from a reset.
            let reset = new.attributes != style.attributes
            append("\u{1B}[")
            var first = true
            if reset {
                first = false
                bytes.append(UInt8(ascii: "0"))
                let codes: [(CellStyle.Attributes, UInt8)] = [
                    (.bold, 1), (.dim, 2), (.italic, 3), (.underline, 4), (.reverse, 7),
                ]
                for (attribute, code) in codes where new.attributes.contains(attribute) {
                    bytes.append(UInt8(ascii: ";"))
                    bytes.append(UInt8(ascii: "0") + code)
                }
            }
            if reset ? new.foreground != .default : new.foreground != style.foreground {
                if !first { bytes.append(UInt8(ascii: ";")) }
                first = false
                appendColor(new.foreground, base: 30)
            }
            if reset ? new.background != .default : new.background != style.background {
                if !first { bytes.append(UInt8(ascii: ";")) }
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
