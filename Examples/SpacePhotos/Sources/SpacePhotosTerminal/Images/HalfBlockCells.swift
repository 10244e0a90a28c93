import BaselineImages
import TerminalUI

/// An image scaled for character cells: each cell shows two pixels, the
/// upper half block `▀` in the top pixel's colour over a background in the
/// bottom pixel's colour.
///
/// Scaling a large photo takes milliseconds, so make these off the main
/// actor (``make(from:fitting:)``), once per image and size, and draw them
/// with ``draw(at:on:)`` in every frame.
public struct HalfBlockCells: Sendable, Equatable {
    /// The drawing's size in cells.
    public let columns: Int
    /// Each cell row shows two rows of pixels.
    public let rows: Int
    /// Row-major cell colours: `columns × rows` top pixels, then as many bottom ones.
    let top: [RGBA]
    let bottom: [RGBA]

    /// `image` scaled to exactly `columns` × `rows` cells (`2 × rows` pixels
    /// high); transparent pixels are drawn over `background`.
    public init(_ image: DecodedImage, columns: Int, rows: Int, background: RGBA = RGBA(r: 0, g: 0, b: 0, a: 255)) {
        let columns = max(1, columns)
        let rows = max(1, rows)
        let scaled =
            image.width == columns && image.height == rows * 2 ? image : image.resized(width: columns, height: rows * 2)
        var top: [RGBA] = []
        var bottom: [RGBA] = []
        top.reserveCapacity(columns * rows)
        bottom.reserveCapacity(columns * rows)
        for row in 0..<rows {
            for x in 0..<columns {
                top.append(Self.composite(scaled.pixel(x: x, y: row * 2), over: background))
                bottom.append(Self.composite(scaled.pixel(x: x, y: row * 2 + 1), over: background))
            }
        }
        self.columns = columns
        self.rows = rows
        self.top = top
        self.bottom = bottom
    }

    /// The cell size that shows all of `image` inside `columns` × `rows`
    /// cells with its aspect ratio kept (a cell is about twice as tall as
    /// wide, which its two pixels make up for).
    public static func fittingSize(of image: DecodedImage, columns: Int, rows: Int) -> (columns: Int, rows: Int) {
        guard image.width > 0, image.height > 0, columns > 0, rows > 0 else { return (max(0, columns), max(0, rows)) }
        let scale = min(Double(columns) / Double(image.width), Double(rows * 2) / Double(image.height))
        let width = max(1, min(columns, Int((Double(image.width) * scale).rounded())))
        let height = max(1, min(rows, Int((Double(image.height) * scale / 2).rounded())))
        return (width, height)
    }

    /// `image` fitted into `columns` × `rows` cells, scaled off the caller's
    /// actor.
    @concurrent
    public static func make(from image: DecodedImage, fitting columns: Int, rows: Int) async -> HalfBlockCells {
        let size = fittingSize(of: image, columns: columns, rows: rows)
        return HalfBlockCells(image, columns: size.columns, rows: size.rows)
    }

    /// Draws the cells with their top-left corner at (`x`, `y`).
    public func draw(at x: Int, _ y: Int, on buffer: inout ScreenBuffer) {
        var cell = Cell("▀")
        for row in 0..<rows {
            for column in 0..<columns {
                let index = row * columns + column
                cell.style = CellStyle(foreground: Self.color(top[index]), background: Self.color(bottom[index]))
                buffer.set(cell, x: x + column, y: y + row)
            }
        }
    }

    /// The text lines of a terminal without a cell buffer: escape codes for
    /// 24-bit colour, sent only when a colour changes, each line ending
    /// with a colour reset.
    public var lines: [String] {
        (0..<rows).map { row in
            var line = ""
            line.reserveCapacity(columns * 40)
            // Most neighbours share a colour in the dark parts of a space photo.
            var foreground: RGBA?
            var background: RGBA?
            for column in 0..<columns {
                let index = row * columns + column
                if top[index] != foreground {
                    line += "\u{1B}[38;2;\(top[index].r);\(top[index].g);\(top[index].b)m"
                    foreground = top[index]
                }
                if bottom[index] != background {
                    line += "\u{1B}[48;2;\(bottom[index].r);\(bottom[index].g);\(bottom[index].b)m"
                    background = bottom[index]
                }
                line += "▀"
            }
            return line + "\u{1B}[0m"
        }
    }

    static func color(_ pixel: RGBA) -> TerminalColor {
        .rgb(pixel.r, pixel.g, pixel.b)
    }

    static func composite(_ pixel: RGBA, over background: RGBA) -> RGBA {
        guard pixel.a < 255 else { return pixel }
        let alpha = Int(pixel.a)
        func blend(_ front: UInt8, _ back: UInt8) -> UInt8 {
            UInt8((Int(front) * alpha + Int(back) * (255 - alpha) + 127) / 255)
        }
        return RGBA(
            r: blend(pixel.r, background.r),
            g: blend(pixel.g, background.g),
            b: blend(pixel.b, background.b),
            a: 255
        )
    }
}
