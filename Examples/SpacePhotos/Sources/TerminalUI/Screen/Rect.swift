/// A rectangle of cells: where a view draws.
public struct Rect: Hashable, Sendable {
    /// The left column, counted from 0 at the screen's left edge.
    public var x: Int
    /// The top row, counted from 0 at the screen's top.
    public var y: Int
    /// Columns wide; never negative when made by ``init(x:y:width:height:)``.
    public var width: Int
    /// Rows high; never negative when made by ``init(x:y:width:height:)``.
    public var height: Int

    /// A rectangle at column `x`, row `y`; a negative width or height becomes 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The column just right of the rectangle (exclusive).
    public var maxX: Int { x + width }
    /// The row just below the rectangle (exclusive).
    public var maxY: Int { y + height }
    /// Whether it holds no cell: no width or no height.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// This rectangle shrunk by `amount` on every side.
    public func inset(by amount: Int) -> Rect {
        Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
    }

    /// This rectangle shrunk by the given amounts.
    public func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        Rect(x: x + left, y: y + top, width: width - left - right, height: height - top - bottom)
    }

    /// The row `offset` lines from the top, one line high.
    public func row(_ offset: Int) -> Rect {
        Rect(x: x, y: y + offset, width: width, height: offset < height ? 1 : 0)
    }

    /// Splits off `count` columns on the left; the rest is on the right.
    public func splitColumns(at count: Int) -> (left: Rect, right: Rect) {
        let left = min(max(0, count), width)
        return (
            Rect(x: x, y: y, width: left, height: height), Rect(x: x + left, y: y, width: width - left, height: height)
        )
    }

    /// Splits off `count` rows at the top; the rest is below.
    public func splitRows(at count: Int) -> (top: Rect, bottom: Rect) {
        let top = min(max(0, count), height)
        return (Rect(x: x, y: y, width: width, height: top), Rect(x: x, y: y + top, width: width, height: height - top))
    }

    /// A rectangle of at most `width` × `height` centred in this one.
    public func centered(width: Int, height: Int) -> Rect {
        let w = min(width, self.width)
        let h = min(height, self.height)
        return Rect(x: x + (self.width - w) / 2, y: y + (self.height - h) / 2, width: w, height: h)
    }
}
