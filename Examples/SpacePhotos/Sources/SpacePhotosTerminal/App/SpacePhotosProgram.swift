import BaselineImages
import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The SpacePhotos terminal app: the ``AppFeature`` store drawn as
/// screens, and keys turned into actions sent to it.
///
/// ```swift
/// let program = SpacePhotosProgram(dependencies: dependencies)
/// try await withTerminal { terminal in
///     await RenderLoop(program: program, output: terminal, events: TerminalEvents(session: terminal)).run()
/// }
/// await program.finish()
/// ```
///
/// Drawing is a function of the store's state (and of the few things the
/// terminal keeps itself, ``InterfaceState``, and the images its views
/// load); no request, no database access and no rule of the app lives here.
@MainActor
public final class SpacePhotosProgram: TerminalProgram {
    /// The smallest terminal the screens fit in.
    public static let minimumSize = TerminalSize(columns: 64, rows: 20)

    /// The app the screens show and act on.
    public let store: Store<AppFeature.State, AppFeature.Action>
    /// Focus, cursors, scroll positions and the notice: what the terminal keeps itself.
    public let ui = InterfaceState()
    /// The photos' images, scaled to the cells of the panels that show them.
    public let images = ImageCellCache()
    /// The work keys started (logins, saves, refreshes).
    public let actions = ActionTasks()
    /// The views' images: the selected photo's and the selected saved
    /// photo's. Each view loads its own, as `AsyncImage` does: per-view
    /// loading, not app state.
    let photoImage: ImageLoader
    let savedImage: ImageLoader
    /// The catalog's images, for prefetching the list at the panel's size.
    let pipeline: ImagePipeline

    /// The terminal front end of the app on `dependencies`; the first frame
    /// starts it (`AppFeature.Action.start`).
    public init(dependencies: AppDependencies) {
        store = AppFeature.store(dependencies)
        pipeline = dependencies.pipeline
        photoImage = ImageLoader(pipeline: dependencies.pipeline)
        savedImage = ImageLoader(pipeline: dependencies.savedPhotos.imagePipeline())
    }

    /// The screen `AppFeature.State.screen` says.
    private var screen: any Screen {
        switch store.screen {
        case .launching, .unavailable:
            return LaunchScreen(store: store, actions: actions)
        case .login:
            guard let login = store.scope(state: \.login, action: \.login) else {
                return LaunchScreen(store: store, actions: actions)
            }
            return LoginScreen(store: login, ui: ui, actions: actions)
        case .main:
            return MainScreen(program: self)
        }
    }

    /// Draws the screen showing, its status line and key hints, and the quit
    /// dialog over it; a terminal smaller than ``minimumSize`` gets a notice instead.
    public func render(_ context: RenderContext) -> Frame {
        var frame = Frame(context.makeBuffer())
        // `.task` on the root view: check the stored session once.
        frame.task(id: "start") { [store] in await store.send(.start).finish() }
        let size = context.size
        guard size.columns >= Self.minimumSize.columns, size.rows >= Self.minimumSize.rows else {
            TooSmallScreen.draw(into: &frame, size: size, minimum: Self.minimumSize)
            return frame
        }
        let bounds = frame.buffer.bounds
        let screen = self.screen
        screen.draw(
            into: &frame,
            in: Rect(x: 0, y: 0, width: bounds.width, height: bounds.height - 2),
            tick: context.tick
        )
        if let notice = ui.notice {
            frame.buffer.write(notice, at: 1, bounds.height - 2, style: Theme.notice, maxWidth: bounds.width - 2)
        } else if let error = screen.statusMessage {
            frame.buffer.write(error, at: 1, bounds.height - 2, style: Theme.error, maxWidth: bounds.width - 2)
        }
        frame.buffer.drawHints(screen.hints, row: bounds.height - 1, width: bounds.width)
        if store.isConfirmingQuit {
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

    /// Hands an event to the screen showing; a `q` it ignores asks to quit
    /// (the store decides: at once, or after asking while a photo is being
    /// saved). Ctrl-C asks too, Ctrl-Z suspends, and any key clears
    /// ``InterfaceState/notice``.
    public func handle(_ event: InputEvent) -> ProgramAction {
        if case .key = event { ui.notice = nil }
        if store.isConfirmingQuit {
            guard case let .key(press) = event else { return .continue }
            switch press.key {
            case .character("y"): store.send(.quitConfirmed)
            case .character("c") where press.modifiers == .control: store.send(.quitConfirmed)
            case .character("n"), .escape: store.send(.quitCancelled)
            default: break
            }
        } else if case let .key(press) = event, press.modifiers == .control, press.key == .character("z") {
            return .suspend
        } else if case let .key(press) = event, press.modifiers == .control, press.key == .character("c") {
            store.send(.quitTapped)
        } else if screen.handle(event) == .ignored, event == .key(KeyPress(.character("q"))) {
            store.send(.quitTapped)
        }
        return store.quit == .confirmed ? .quit : .continue
    }

    /// Drops the running saves and cancels the work keys started (but for
    /// the to-do writes, which finish); the loop then ends. Call
    /// ``finish()`` after it to wait for that work.
    public func terminate(reason: String) {
        store.send(.saved(.cancelSaves))
        actions.cancelAll()
    }

    /// Drops the running saves, stops the lists' live queries and the kept
    /// values, cancels the work keys started, lets the to-do writes and the
    /// kept values' saves finish, and waits for it all to end: call it after
    /// the loop, before closing the databases.
    public func finish() async {
        store.send(.saved(.cancelSaves))
        // Else they would follow until the store goes, and read a closing database.
        store.send(.todos(.todos(.stop)))
        store.send(.saved(.photos(.stop)))
        store.send(.tab(.stop))
        store.send(.counter(.count(.stop)))
        actions.cancelAll()
        await actions.waitForAll()
        // The last tab and count, on disk before the app ends.
        await SharedValues.process.waitForSaves()
    }
}
