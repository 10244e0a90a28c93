/// One character cell of the screen.
///
/// A wide character (CJK, most emoji) takes two cells: the first holds it
/// with ``width`` 2, the second is a ``continuation`` cell that draws
/// nothing of its own.
public struct Cell: Hashable, Sendable {
    /// The grapheme cluster shown: a space for an empty cell, `nil` for the
    /// second half of a wide character.
    public var grapheme: Character?
    /// How many columns the grapheme takes: 1, 2, or 0 for a continuation.
    public var width: UInt8
    public var style: CellStyle

    public init(_ grapheme: Character, width: UInt8 = 1, style: CellStyle = .plain) {
        self.grapheme = grapheme
        self.width = width
        self.style = style
    }

    private init(continuationOf style: CellStyle) {
        self.grapheme = nil
        self.width = 0
        self.style = style
    }

    /// An empty cell in `style`.
    public static func blank(_ style: CellStyle = .plain) -> Cell { Cell(" ", style: style) }

    /// The second column of a wide character.
    public static func continuation(_ style: CellStyle) -> Cell { Cell(continuationOf: style) }

    /// Whether this is the second column of a wide character.
    public var isContinuation: Bool { width == 0 }
}
