/// Which rows of a long list are on screen: the window keeps its offset
/// while the selection stays inside it, and moves just enough when it
/// leaves (as list views do), so scrolling 10,000 rows draws only the
/// rows that show.
public struct ListWindow: Hashable, Sendable {
    /// The first row shown.
    public var offset: Int

    /// A window whose first row shown is `offset`.
    public init(offset: Int = 0) {
        self.offset = offset
    }

    /// The window that shows `selected` (when there is one) among `count`
    /// rows in `height` lines, moved from this one as little as possible.
    public func scrolled(toShow selected: Int?, count: Int, height: Int) -> ListWindow {
        guard height > 0, count > 0 else { return ListWindow() }
        var offset = min(self.offset, max(0, count - height))
        if let selected {
            if selected < offset { offset = selected }
            if selected >= offset + height { offset = selected - height + 1 }
        }
        return ListWindow(offset: max(0, offset))
    }

    /// The rows shown in `height` lines.
    public func visibleRows(count: Int, height: Int) -> Range<Int> {
        let start = min(offset, max(0, count - 1))
        return start..<min(count, start + max(0, height))
    }
}
