/// A colour as a terminal draws it: the terminal's own default, one of the
/// 256 indexed colours, or 24-bit RGB.
///
/// Views may use any of them; the ``FrameEncoder`` turns RGB into the
/// nearest indexed colour on a terminal without 24-bit colour.
public enum TerminalColor: Hashable, Sendable {
    /// The terminal's default foreground or background.
    case `default`
    /// One of the 256 indexed colours (0–15 are the user's theme colours).
    case indexed(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)

    /// Theme colour 0, black in most themes.
    public static let black = TerminalColor.indexed(0)
    /// Theme colour 1, red in most themes.
    public static let red = TerminalColor.indexed(1)
    /// Theme colour 2, green in most themes.
    public static let green = TerminalColor.indexed(2)
    /// Theme colour 3, yellow in most themes.
    public static let yellow = TerminalColor.indexed(3)
    /// Theme colour 4, blue in most themes.
    public static let blue = TerminalColor.indexed(4)
    /// Theme colour 5, magenta in most themes.
    public static let magenta = TerminalColor.indexed(5)
    /// Theme colour 6, cyan in most themes.
    public static let cyan = TerminalColor.indexed(6)
    /// Theme colour 7, a light grey in most themes.
    public static let white = TerminalColor.indexed(7)
    /// Theme colour 8 ("bright black"), a dark grey in most themes.
    public static let gray = TerminalColor.indexed(8)
    /// Theme colour 9, a bright red in most themes.
    public static let brightRed = TerminalColor.indexed(9)
    /// Theme colour 10, a bright green in most themes.
    public static let brightGreen = TerminalColor.indexed(10)
    /// Theme colour 11, a bright yellow in most themes.
    public static let brightYellow = TerminalColor.indexed(11)
    /// Theme colour 12, a bright blue in most themes.
    public static let brightBlue = TerminalColor.indexed(12)
    /// Theme colour 14, a bright cyan in most themes.
    public static let brightCyan = TerminalColor.indexed(14)
    /// Theme colour 15, white in most themes.
    public static let brightWhite = TerminalColor.indexed(15)

    /// The nearest of the 240 fixed colours of the 256-colour palette (the
    /// 6×6×6 cube and the 24 greys; the first 16 follow the user's theme, so
    /// they are never picked for an exact colour).
    public static func nearestIndexed(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        // The cube's levels are 0, 95, 135, 175, 215, 255.
        func cubeStep(_ value: UInt8) -> Int {
            value < 48 ? 0 : value < 115 ? 1 : (Int(value) - 35) / 40
        }
        let levels = [0, 95, 135, 175, 215, 255]
        let (r, g, b) = (cubeStep(red), cubeStep(green), cubeStep(blue))
        let cube = (levels[r], levels[g], levels[b])
        // The grey ramp runs 8, 18, …, 238.
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        let greyStep = average > 238 ? 23 : max(0, (average - 3) / 10)
        let grey = 8 + greyStep * 10
        func distance(_ candidate: (Int, Int, Int)) -> Int {
            let dr = candidate.0 - Int(red)
            let dg = candidate.1 - Int(green)
            let db = candidate.2 - Int(blue)
            return dr * dr + dg * dg + db * db
        }
        if distance((grey, grey, grey)) < distance(cube) {
            return UInt8(232 + greyStep)
        }
        return UInt8(16 + 36 * r + 6 * g + b)
    }
}
