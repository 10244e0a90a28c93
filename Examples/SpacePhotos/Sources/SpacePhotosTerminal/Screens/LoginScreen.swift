import SpacePhotosCore
import TerminalUI

/// Seed 000's login screen: ID and password (masked), the Log in button
/// enabled only when both are filled and no login is in flight, the
/// in-flight state, and the failure shown in place.
@MainActor
struct LoginScreen {
    let model: LoginViewModel
    let notice: String?
    let ui: InterfaceState

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        ui.currentLogin = model
        let box = rect.centered(width: 56, height: 14)
        frame.buffer.fill(box)
        frame.buffer.drawBox(box, title: "Log in to SpacePhotos", style: Theme.secondary)
        let inner = box.inset(top: 2, left: 3, bottom: 1, right: 3)
        let labelWidth = 10
        let fieldWidth = inner.width - labelWidth
        frame.buffer.write("ID", at: inner.x, inner.y, style: ui.loginField == .id ? Theme.title : .plain)
        TextFieldView(
            text: model.id,
            cursor: ui.cursor(.loginID, in: model.id),
            isFocused: ui.loginField == .id && !model.isLoggingIn,
            placeholder: "your member ID",
            style: Theme.field
        ).draw(in: Rect(x: inner.x + labelWidth, y: inner.y, width: fieldWidth, height: 1), on: &frame.buffer)
        frame.buffer.write(
            "Password",
            at: inner.x,
            inner.y + 2,
            style: ui.loginField == .password ? Theme.title : .plain
        )
        TextFieldView(
            text: model.password,
            cursor: ui.cursor(.loginPassword, in: model.password),
            isFocused: ui.loginField == .password && !model.isLoggingIn,
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
        if let message = model.loginErrorMessage {
            frame.buffer.writeWrapped(message.text, in: messageRect, style: Theme.error)
        } else if let notice {
            frame.buffer.writeWrapped(notice, in: messageRect, style: Theme.notice)
        } else if !model.isLoggingIn {
            frame.buffer.writeWrapped("Demo member: astro / stardust-42", in: messageRect, style: Theme.secondary)
        }
    }

    var hints: [KeyHint] {
        [KeyHint("Tab ↑↓", "next field"), KeyHint("Enter", "log in"), KeyHint("Ctrl-C", "quit")]
    }

    /// Typing goes to the focused field; Tab and the arrows move between
    /// them; Enter on the ID goes to the password, on the password logs in.
    func handle(_ event: InputEvent, actions: ActionTasks) {
        ui.currentLogin = model
        guard !model.isLoggingIn else { return }
        if case let .key(press) = event {
            switch press.key {
            case .tab, .backTab, .up, .down:
                ui.loginField = ui.loginField == .id ? .password : .id
                return
            case .enter:
                if ui.loginField == .id, model.password.isEmpty {
                    ui.loginField = .password
                } else if model.isLoginButtonEnabled {
                    actions.start { [model] in await model.loginButtonPressed() }
                }
                return
            default:
                break
            }
        }
        switch ui.loginField {
        case .id:
            var id = model.id
            ui.edit(event, &id, field: .loginID, limit: LoginViewModel.maximumIDLength)
            if id != model.id { model.id = id }
        case .password:
            var password = model.password
            ui.edit(event, &password, field: .loginPassword, limit: LoginViewModel.maximumPasswordLength)
            if password != model.password { model.password = password }
        }
    }
}
