import SpacePhotosCore
import TerminalUI

/// The SpacePhotos terminal app: the ``AppModel`` drawn as screens, and keys
/// turned into calls on its models and actions sent to its stores.
///
/// ```swift
/// let program = SpacePhotosProgram(app: AppModel(dependencies: dependencies))
/// try await withTerminal { terminal in
///     await RenderLoop(program: program, output: terminal, events: TerminalEvents(session: terminal)).run()
/// }
/// await program.finish()
/// ```
///
/// Drawing is a function of the models' state (and of the few things the
/// terminal keeps itself, ``InterfaceState``); no request, no database
/// access and no rule of the app lives here.
@MainActor
public final class SpacePhotosProgram: TerminalProgram {
    /// The smallest terminal the screens fit in.
    public static let minimumSize = TerminalSize(columns: 64, rows: 20)

    /// The app the screens show and act on.
    public let app: AppModel
    /// Focus, cursors, scroll positions and the notice: what the terminal keeps itself.
    public let ui = InterfaceState()
    /// The photos' images, scaled to the cells of the panels that show them.
    public let images = ImageCellCache()
    /// The work keys started (logins, saves, refreshes).
    public let actions = ActionTasks()

    /// The terminal front end of `app`; the first frame starts it (`AppFeature.Action.start`).
    public init(app: AppModel) {
        self.app = app
    }

    /// Draws the screen `AppFeature.State.screen` says, with its key hints, and the quit
    /// dialog over it; a terminal smaller than ``minimumSize`` gets a notice instead.
    public func render(_ context: RenderContext) -> Frame {
        var frame = Frame(context.makeBuffer())
        // `.task` on the root view: check the stored session once.
        frame.task(id: "start") { [store = app.store] in await store.send(.start).finish() }
        let size = context.size
        guard size.columns >= Self.minimumSize.columns, size.rows >= Self.minimumSize.rows else {
            TooSmallScreen.draw(into: &frame, size: size, minimum: Self.minimumSize)
            return frame
        }
        let bounds = frame.buffer.bounds
        switch app.store.screen {
        case .launching, .unavailable:
            let screen = LaunchScreen(app: app)
            screen.draw(
                into: &frame,
                in: Rect(x: 0, y: 0, width: bounds.width, height: bounds.height - 1),
                tick: context.tick
            )
            frame.buffer.drawHints(screen.hints, row: bounds.height - 1, width: bounds.width)
        case .login:
            guard let login = app.store.scope(state: \.login, action: \.login) else { break }
            let screen = LoginScreen(store: login, ui: ui)
            screen.draw(
                into: &frame,
                in: Rect(x: 0, y: 0, width: bounds.width, height: bounds.height - 2),
                tick: context.tick
            )
            if let notice = ui.notice {
                frame.buffer.write(notice, at: 1, bounds.height - 2, style: Theme.notice, maxWidth: bounds.width - 2)
            }
            frame.buffer.drawHints(screen.hints, row: bounds.height - 1, width: bounds.width)
        case .main:
            MainScreen(app: app, ui: ui, images: images).draw(into: &frame, tick: context.tick)
        }
        if app.isConfirmingQuit {
            drawQuitDialog(into: &frame)
        }
        return frame
    }

    private func drawQuitDialog(into frame: inout Frame) {
        let dialog = frame.buffer.bounds.centered(width: 52, height: 6)
        frame.buffer.fill(dialog)
        frame.buffer.drawBox(dialog, title: "Quit?", style: Theme.notice, titleStyle: Theme.notice)
        frame.buffer.write(
            "A photo is being saved. Quit and lose it?",
            at: dialog.x + 2,
            dialog.y + 2,
            maxWidth: dialog.width - 4
        )
        frame.buffer.drawHints(
            [KeyHint("y", "quit"), KeyHint("n Esc", "stay")],
            at: dialog.x + 1,
            row: dialog.y + 4,
            width: dialog.width - 2
        )
    }

    /// Hands a key to the screen showing. Ctrl-C quits (asking first while a
    /// photo is being saved), Ctrl-Z suspends, and any key clears ``InterfaceState/notice``.
    public func handle(_ event: InputEvent) -> ProgramAction {
        if case .key = event { ui.notice = nil }
        if app.isConfirmingQuit {
            guard case let .key(press) = event else { return .continue }
            switch press.key {
            case .character("y"): return .quit
            case .character("c") where press.modifiers == .control: return .quit
            case .character("n"), .escape: app.cancelQuit()
            default: break
            }
            return .continue
        }
        if case let .key(press) = event, press.modifiers == .control {
            switch press.key {
            case .character("c"): return app.requestQuit() ? .quit : .continue
            case .character("z"): return .suspend
            default: break
            }
        }
        switch app.store.screen {
        case .launching, .unavailable:
            guard case let .key(press) = event else { return .continue }
            if press == KeyPress(.character("q")) { return .quit }
            _ = LaunchScreen(app: app).handle(press, actions: actions)
        case .login:
            guard let login = app.store.scope(state: \.login, action: \.login) else {
                return .continue
            }
            LoginScreen(store: login, ui: ui).handle(event, actions: actions)
        case .main:
            let wantsToQuit = MainScreen(app: app, ui: ui, images: images).handle(event, actions: actions)
            if wantsToQuit, app.requestQuit() { return .quit }
        }
        return .continue
    }

    /// Cancels the work keys started (but for the to-do writes, which
    /// finish); the loop then ends. Call ``finish()`` after it to wait for that work.
    public func terminate(reason: String) {
        actions.cancelAll()
    }

    /// Cancels the work keys started, lets the to-do writes finish, and waits
    /// for it all to end: call it after the loop, before closing the databases.
    public func finish() async {
        actions.cancelAll()
        await actions.waitForAll()
    }
}
