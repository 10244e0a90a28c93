import BaselineStore
import Foundation
import SpacePhotosCore
import TerminalUI

/// The member page: nickname, birthday and today's fact, loaded together;
/// logging out returns to the login screen.
@MainActor
struct ProfileScreen: Screen {
    /// For logging out.
    let app: Store<AppFeature.State, AppFeature.Action>
    /// This session's profile; `nil` only while the main screen goes away.
    let profile: Store<ProfileFeature.State, ProfileFeature.Action>?
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        frame.buffer.drawBox(rect, title: "Profile")
        let inner = rect.inset(top: 2, left: 4, bottom: 1, right: 4)
        guard let model = profile?.state else { return }
        if model.isLoading {
            let spinner = frame.spinner(at: tick)
            frame.buffer.write(
                "\(spinner) Loading your profile and today's fact…",
                at: inner.x,
                inner.y,
                style: Theme.secondary
            )
        } else if let error = model.errorMessage {
            frame.buffer.writeWrapped(
                error + " Press r to retry.",
                in: Rect(x: inner.x, y: inner.y, width: inner.width, height: 3),
                style: Theme.error
            )
        }
        if let member = model.member {
            let birthday = PhotoDay.string(from: member.birthday)
            frame.buffer.write(member.nickname, at: inner.x, inner.y + 2, style: Theme.accent)
            frame.buffer.write("ID        \(member.id)", at: inner.x, inner.y + 4)
            frame.buffer.write("Birthday  \(birthday)", at: inner.x, inner.y + 5)
            if let fact = model.fact, let number = model.factNumber {
                frame.buffer.write("Today's fact (#\(number))", at: inner.x, inner.y + 7, style: Theme.title)
                frame.buffer.writeWrapped(fact, in: Rect(x: inner.x, y: inner.y + 8, width: inner.width, height: 3))
            }
        }
        frame.buffer.drawButton("Log out", at: inner.x, inner.maxY - 1, enabled: true)
        if let error = app.logOutErrorMessage {
            frame.buffer.write(error, at: inner.x + 14, inner.maxY - 1, style: Theme.error, maxWidth: inner.width - 14)
        }
    }

    var hints: [KeyHint] {
        [KeyHint("r", "reload"), KeyHint("o", "log out")]
    }

    func handle(_ event: InputEvent) -> InputResult {
        guard case let .key(press) = event else { return .ignored }
        switch press.key {
        case .character("r"):
            guard let profile else { return .handled }
            actions.start { await profile.send(.load).finish() }
        case .character("o"):
            actions.start { [app] in await app.send(.logOutButtonTapped).finish() }
        default:
            return .ignored
        }
        return .handled
    }
}
