/// A list's selection, by id: the one rule every list of the app shares for
/// moving it, finding it, and choosing the neighbour when the selected row
/// is removed.
///
/// ```swift
/// state.selection.move(by: 1, in: state.todos)            // ↓
/// state.selection.removing(todo.id, from: state.todos)    // the row below takes it
/// let row = state.selection.index(in: state.todos)        // nil while it is not listed
/// ```
///
/// The selection is kept when the list lacks its id: a row just added is
/// selected before the list that holds it arrives.
public struct ListSelection<ID: Hashable & Sendable>: Hashable, Sendable {
    /// The selected row's id; `nil` when nothing is selected.
    public var id: ID?

    /// A selection of `id` (nothing by default).
    public init(_ id: ID? = nil) {
        self.id = id
    }

    /// The selected row's position in `items`; `nil` while it is not listed.
    public func index<Item: Identifiable>(in items: [Item]) -> Int? where Item.ID == ID {
        guard let id else { return nil }
        return items.firstIndex { $0.id == id }
    }

    /// The selected row's position in `items` whose ids are optional (rows
    /// the database has not numbered yet match nothing).
    public func index<Item: Identifiable>(in items: [Item]) -> Int? where Item.ID == ID? {
        guard let id else { return nil }
        return items.firstIndex { $0.id == id }
    }

    /// Moves the selection `offset` rows in `items` (negative is up),
    /// stopping at the ends; see ``index(movingFrom:by:count:)``.
    public mutating func move<Item: Identifiable>(by offset: Int, in items: [Item]) where Item.ID == ID {
        guard let index = Self.index(movingFrom: index(in: items), by: offset, count: items.count) else { return }
        id = items[index].id
    }

    /// Moves the selection `offset` rows in `items` whose ids are optional.
    public mutating func move<Item: Identifiable>(by offset: Int, in items: [Item]) where Item.ID == ID? {
        guard let index = Self.index(movingFrom: index(in: items), by: offset, count: items.count) else { return }
        id = items[index].id
    }

    /// Before `removed` leaves `items`: when it is the selected row, the
    /// row below takes the selection, or the row above at the end, or none.
    public mutating func removing<Item: Identifiable>(_ removed: ID, from items: [Item]) where Item.ID == ID {
        guard id == removed, let index = index(in: items) else { return }
        id = Self.neighbour(of: index, count: items.count).map { items[$0].id }
    }

    /// Before `removed` leaves `items` whose ids are optional.
    public mutating func removing<Item: Identifiable>(_ removed: ID, from items: [Item]) where Item.ID == ID? {
        guard id == removed, let index = index(in: items) else { return }
        id = Self.neighbour(of: index, count: items.count).flatMap { items[$0].id }
    }

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

    /// The row that takes the selection when row `index` of `count` goes.
    static func neighbour(of index: Int, count: Int) -> Int? {
        if index + 1 < count { return index + 1 }
        return index > 0 ? index - 1 : nil
    }
}
