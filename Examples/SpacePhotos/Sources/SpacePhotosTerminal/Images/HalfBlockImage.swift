import BaselineImages

/// An image drawn as lines of text with 24-bit colour escapes, for commands
/// that print to a terminal without taking it over (``HalfBlockCells`` does
/// the drawing).
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
    /// aspect ratio; transparent pixels are drawn over `background`.
    public init(_ image: DecodedImage, columns: Int, background: RGBA = RGBA(r: 0, g: 0, b: 0, a: 255)) {
        let width = max(1, min(columns, image.width))
        var height = max(2, Int((Double(image.height) * Double(width) / Double(max(1, image.width))).rounded()))
        height += height % 2
        let cells = HalfBlockCells(image, columns: width, rows: height / 2, background: background)
        self.columns = width
        self.lines = cells.lines
    }
}
