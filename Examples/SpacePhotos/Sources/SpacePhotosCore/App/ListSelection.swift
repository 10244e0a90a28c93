/// How a list's selection moves: the rule every list of the app shares.
public enum ListSelection {
    /// The index `offset` rows from `current` in a list of `count` items,
    /// stopping at the ends; nil for an empty list. With nothing selected,
    /// moving down starts above the first item and moving up below the
    /// last, so one step down selects the first, and a large step (End)
    /// the last.
    public static func index(movingFrom current: Int?, by offset: Int, count: Int) -> Int? {
        guard count > 0 else { return nil }
        let start = current ?? (offset >= 0 ? -1 : count)
        let (moved, overflow) = start.addingReportingOverflow(offset)
        return overflow ? (offset > 0 ? count - 1 : 0) : min(max(0, moved), count - 1)
    }
}
