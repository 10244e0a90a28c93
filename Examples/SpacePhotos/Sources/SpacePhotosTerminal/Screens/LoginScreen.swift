import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The login screen: ID and password (masked), the Log in button enabled
/// only when both are filled and no login is in flight, the in-flight
/// state, and the failure shown in place.
@MainActor
struct LoginScreen: Screen {
    let store: Store<LoginFeature.State, LoginFeature.Action>
    let ui: InterfaceState
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let model = store.state
        let box = rect.centered(width: 56, height: 14)
        frame.buffer.fill(box)
        frame.buffer.drawBox(box, title: "Log in to SpacePhotos", style: Theme.secondary)
        let inner = box.inset(top: 2, left: 3, bottom: 1, right: 3)
        let labelWidth = 10
        let fieldWidth = inner.width - labelWidth
        frame.buffer.write("ID", at: inner.x, inner.y, style: model.focus == .id ? Theme.title : .plain)
        TextFieldView(
            text: model.id,
            cursor: ui.cursor(.loginID, in: model.id),
            isFocused: model.focus == .id && !model.isLoggingIn,
            placeholder: "your member ID",
            style: Theme.field
        ).draw(in: Rect(x: inner.x + labelWidth, y: inner.y, width: fieldWidth, height: 1), on: &frame.buffer)
        frame.buffer.write(
            "Password",
            at: inner.x,
            inner.y + 2,
            style: model.focus == .password ? Theme.title : .plain
        )
        TextFieldView(
            text: model.password,
            cursor: ui.cursor(.loginPassword, in: model.password),
            isFocused: model.focus == .password && !model.isLoggingIn,
            isSecure: true,
            style: Theme.field
        ).draw(in: Rect(x: inner.x + labelWidth, y: inner.y + 2, width: fieldWidth, height: 1), on: &frame.buffer)

        let buttonRow = inner.y + 4
        if model.isLoggingIn {
            let spinner = frame.spinner(at: tick)
            frame.buffer.drawButton("Logging in… \(spinner)", at: inner.x + labelWidth, buttonRow, enabled: false)
        } else {
            frame.buffer.drawButton("Log in", at: inner.x + labelWidth, buttonRow, enabled: model.isLoginButtonEnabled)
        }
        let messageRect = Rect(x: inner.x, y: buttonRow + 2, width: inner.width, height: 3)
        if let message = model.errorMessage {
            frame.buffer.writeWrapped(message.text, in: messageRect, style: Theme.error)
        } else if let notice = model.notice {
            frame.buffer.writeWrapped(notice, in: messageRect, style: Theme.notice)
        } else if !model.isLoggingIn {
            frame.buffer.writeWrapped("Demo member: astro / stardust-42", in: messageRect, style: Theme.secondary)
        }
    }

    var hints: [KeyHint] {
        if store.isLoggingIn {
            return [KeyHint("Esc", "cancel"), KeyHint("Ctrl-C", "quit")]
        }
        return [KeyHint("Tab ↑↓", "next field"), KeyHint("Enter", "log in"), KeyHint("Ctrl-C", "quit")]
    }

    var isTyping: Bool { true }

    /// Typing goes to the focused field; Tab and the arrows move between
    /// them; Enter is the form's submit; Esc cancels a login in flight.
    /// Every key is the form's (`q` is a letter of a password).
    func handle(_ event: InputEvent) -> InputResult {
        let model = store.state
        if model.isLoggingIn {
            if case .key(KeyPress(.escape)) = event { store.send(.cancelLoginTapped) }
            return .handled
        }
        if case let .key(press) = event {
            switch press.key {
            case .tab, .backTab, .up, .down:
                store.binding(\.focus).value = model.focus == .id ? .password : .id
                return .handled
            case .enter:
                actions.start { [store] in await store.send(.submitted).finish() }
                return .handled
            default:
                break
            }
        }
        switch model.focus {
        case .id:
            ui.edit(event, store.binding(\.id), field: .loginID, limit: LoginFeature.State.maximumIDLength)
        case .password:
            ui.edit(
                event,
                store.binding(\.password),
                field: .loginPassword,
                limit: LoginFeature.State.maximumPasswordLength
            )
        }
        return .handled
    }
}
