import BaselineImages

/// An image drawn in a terminal with 24-bit colour: each character cell shows
/// two pixels, the upper half block `▀` in the top pixel's colour over a
/// background in the bottom pixel's colour.
///
/// ```swift
/// for line in HalfBlockImage(image, columns: TerminalSize.current().columns).lines {
///     print(line)
/// }
/// ```
public struct HalfBlockImage: Sendable {
    /// The rows of text, each ending with a colour reset.
    public let lines: [String]
    /// The drawing's size in character cells.
    public let columns: Int

    /// Scales `image` to `columns` characters wide (never up), keeping its
    /// aspect ratio; terminal cells are about twice as tall as wide, which the
    /// two pixels per cell make up for. Transparent pixels are drawn over `background`.
    public init(_ image: DecodedImage, columns: Int, background: RGBA = RGBA(r: 0, g: 0, b: 0, a: 255)) {
        let width = max(1, min(columns, image.width))
        var height = max(2, Int((Double(image.height) * Double(width) / Double(image.width)).rounded()))
        height += height % 2
        let scaled = image.width == width && image.height == height ? image : image.resized(width: width, height: height)
        self.columns = width
        var lines: [String] = []
        lines.reserveCapacity(height / 2)
        for row in stride(from: 0, to: height, by: 2) {
            var line = ""
            line.reserveCapacity(width * 40)
            // Escape codes only when a colour changes: most neighbours share one
            // in the dark parts of a space photo.
            var foreground: RGBA?
            var backgroundColour: RGBA?
            for x in 0..<width {
                let top = Self.composite(scaled.pixel(x: x, y: row), over: background)
                let bottom = Self.composite(scaled.pixel(x: x, y: row + 1), over: background)
                if top != foreground {
                    line += "\u{1B}[38;2;\(top.r);\(top.g);\(top.b)m"
                    foreground = top
                }
                if bottom != backgroundColour {
                    line += "\u{1B}[48;2;\(bottom.r);\(bottom.g);\(bottom.b)m"
                    backgroundColour = bottom
                }
                line += "▀"
            }
            line += "\u{1B}[0m"
            lines.append(line)
        }
        self.lines = lines
    }

    static func composite(_ pixel: RGBA, over background: RGBA) -> RGBA {
        guard pixel.a < 255 else { return pixel }
        let alpha = Int(pixel.a)
        func blend(_ front: UInt8, _ back: UInt8) -> UInt8 {
            UInt8((Int(front) * alpha + Int(back) * (255 - alpha) + 127) / 255)
        }
        return RGBA(r: blend(pixel.r, background.r), g: blend(pixel.g, background.g), b: blend(pixel.b, background.b), a: 255)
    }
}
