/// How ``Reducer/printingChanges(_:)`` reports an action and the state
/// change it made.
///
/// ``lines(to:)`` (the default) writes the action and the lines of the
/// state's `dump` that changed. Make your own to send changes to a logger or
/// to format them with a diffing library such as custom-dump, which keeps
/// this module free of it:
///
/// ```swift
/// let printer = ChangePrinter<Counter.State, Counter.Action> { action, old, new in
///     logger.debug("\(action): \(old.count) → \(new.count)")
/// }
/// let store = Store(initialState: Counter.State()) { Counter().printingChanges(printer) }
/// ```
public struct ChangePrinter<State, Action> {
    let report: (_ action: Action, _ old: State, _ new: State) -> Void

    /// A printer that calls `report` with each action, the state before it
    /// and the state after it.
    public init(_ report: @escaping (_ action: Action, _ old: State, _ new: State) -> Void) {
        self.report = report
    }

    /// Writes each action, then the lines of the state's `dump` that it
    /// changed (`-` before, `+` after) with `…` for unchanged runs, or
    /// "(no state change)". Lines go to `write`, by default standard output.
    ///
    /// ```
    /// received action: increment
    ///   ▿ Counter.State
    ///     - id: 7
    /// -   - count: 0
    /// +   - count: 1
    ///     - fact: nil
    ///     …
    /// ```
    public static func lines(to write: @escaping (String) -> Void = { print($0) }) -> ChangePrinter {
        ChangePrinter { action, old, new in
            write("received action: \(action)")
            let difference = StateDifference(from: old, to: new)
            write(difference.lines.isEmpty ? "  (no state change)" : difference.lines.joined(separator: "\n"))
        }
    }
}

/// A reducer that runs `base`, then reports each action and the change it
/// made through a ``ChangePrinter``; in release builds, `base` alone. Made
/// with ``Reducer/printingChanges(_:)``.
public struct PrintChanges<Base: Reducer>: Reducer {
    let base: Base
    let printer: ChangePrinter<Base.State, Base.Action>

    /// Runs `base`, and in debug builds reports the change.
    public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
        #if DEBUG
        let old = state
        let effect = base.reduce(into: &state, action: action)
        printer.report(action, old, state)
        return effect
        #else
        return base.reduce(into: &state, action: action)
        #endif
    }
}

extension Reducer {
    /// This reducer, reporting every action and the state change it made, in
    /// debug builds only: the quickest way to see what a feature does.
    ///
    /// ```swift
    /// let store = Store(initialState: Search.State()) { Search().printingChanges() }
    /// ```
    public func printingChanges(_ printer: ChangePrinter<State, Action> = .lines()) -> PrintChanges<Self> {
        PrintChanges(base: self, printer: printer)
    }
}

/// The lines of two values' `dump` that differ, for ``ChangePrinter/lines(to:)``.
struct StateDifference {
    /// `-` and `+` lines for what changed, two spaces before the first line
    /// and unchanged lines next to a change, and `    …` for other unchanged
    /// runs; empty when the dumps are equal.
    let lines: [String]

    init<State>(from old: State, to new: State) {
        let before = Self.dumpLines(old)
        let after = Self.dumpLines(new)
        let difference = after.difference(from: before)
        guard !difference.isEmpty else {
            lines = []
            return
        }
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in difference {
            switch change {
            case let .remove(offset, _, _): removed.insert(offset)
            case let .insert(offset, _, _): inserted.insert(offset)
            }
        }
        // Walk both dumps side by side: unchanged lines advance both.
        var output: [String] = []
        var skipped = false
        var oldIndex = 0
        var newIndex = 0
        while oldIndex < before.count || newIndex < after.count {
            if oldIndex < before.count, removed.contains(oldIndex) {
                output.append("- " + before[oldIndex])
                oldIndex += 1
            } else if newIndex < after.count, inserted.contains(newIndex) {
                output.append("+ " + after[newIndex])
                newIndex += 1
            } else if oldIndex >= before.count || newIndex >= after.count {
                break  // cannot happen: both dumps keep the same unchanged lines
            } else {
                // Unchanged: the first line (the value's type) and lines next
                // to a change are shown, for context; other runs are elided.
                let shown =
                    newIndex == 0 || removed.contains(oldIndex + 1) || inserted.contains(newIndex + 1)
                    || removed.contains(oldIndex - 1) || inserted.contains(newIndex - 1)
                if shown {
                    output.append("  " + after[newIndex])
                    skipped = false
                } else if !skipped {
                    output.append("    …")
                    skipped = true
                }
                oldIndex += 1
                newIndex += 1
            }
        }
        lines = output
    }

    private static func dumpLines<Value>(_ value: Value) -> [String] {
        var text = ""
        dump(value, to: &text)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}
