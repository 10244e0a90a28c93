import BaselineStore
import Observation
import SpacePhotosCore
import TerminalUI

/// What the terminal front end keeps of its own: only what SwiftUI would
/// keep in the view (`@FocusState`, a text field's cursor, a list's scroll
/// position, a transient notice). Everything else is the store's state.
@MainActor
@Observable
public final class InterfaceState {
    /// Where keys go on the To-dos tab (editing an item is the store's
    /// ``TodoList/State/editor``).
    public enum TodoFocus: Sendable {
        case list
        case draft
        /// The search field: typing narrows the list.
        case search
    }

    /// The text fields, for their cursors.
    public enum Field: Hashable, Sendable {
        case loginID
        case loginPassword
        case todoDraft
        case todoEdit
        case todoSearch
    }

    /// Whether keys on the To-dos tab move in the list, type into the new
    /// item's field or into the search; the list has them at first.
    public var todoFocus: TodoFocus = .list
    /// A one-line message until the next key (a paste cut to a field's limit).
    public var notice: String?
    /// Each field's cursor, as a character offset (the end when absent).
    public var cursors: [Field: Int] = [:]

    /// Each list's scroll position. Written while drawing (as a list view
    /// keeps its offset), so not observed: it never causes a redraw itself.
    @ObservationIgnored public var listWindows: [AppTab: ListWindow] = [:]
    /// Each list's height in the last frame, for Page Up and Page Down.
    @ObservationIgnored public var listHeights: [AppTab: Int] = [:]

    /// A fresh interface: the to-do list focused, every
    /// cursor at its field's end, every list at its top.
    public init() {}

    /// The cursor of `field` in `text`: where it was left, or the end.
    public func cursor(_ field: Field, in text: String) -> Int {
        min(cursors[field] ?? text.count, text.count)
    }

    /// Applies an editing key to `text`, the value of `field`, keeping its
    /// cursor; a paste cut to `limit` leaves a notice.
    @discardableResult
    public func edit(_ event: InputEvent, _ text: inout String, field: Field, limit: Int) -> TextEditing.Result {
        var cursor = cursor(field, in: text)
        let result = TextEditing.apply(event, to: &text, cursor: &cursor, limit: limit)
        cursors[field] = cursor
        if case let .truncated(dropped) = result {
            notice = "The field holds \(limit) characters: \(dropped) were left out."
        }
        return result
    }

    /// Applies an editing key to a store's bound field (``Store/binding(_:)``),
    /// which is sent its new value only when the key changed it.
    @discardableResult
    public func edit(
        _ event: InputEvent,
        _ binding: StoreBinding<String>,
        field: Field,
        limit: Int
    ) -> TextEditing.Result {
        var text = binding.value
        let result = edit(event, &text, field: field, limit: limit)
        if text != binding.value { binding.value = text }
        return result
    }
}
