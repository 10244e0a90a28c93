/// An app the ``RenderLoop`` runs: a view of state and a handler of input
/// (bubbletea's model, with ratatui's immediate-mode drawing).
///
/// ```swift
/// @MainActor final class CounterProgram: TerminalProgram {
///     let model: CounterModel        // @Observable
///     func render(_ context: RenderContext) -> Frame {
///         var buffer = ScreenBuffer(width: context.size.columns, height: context.size.rows)
///         buffer.write("Count: \(model.count)", at: 0, 0)
///         return Frame(buffer)
///     }
///     func handle(_ event: InputEvent) -> ProgramAction {
///         if event == .key(.character("q")) { return .quit }
///         if event == .key(.character("+")) { model.increment() }
///         return .continue
///     }
/// }
/// ```
@MainActor
public protocol TerminalProgram: AnyObject {
    /// Draws the whole screen. Runs inside `withObservationTracking`: every
    /// observable property it reads is watched, and the loop draws again
    /// when one changes. Keep it a function of state: no side effects.
    func render(_ context: RenderContext) -> Frame

    /// Handles one input event: calls into models, starts tasks for async
    /// work (the frame follows from the state they change).
    func handle(_ event: InputEvent) -> ProgramAction

    /// The app is asked to end from outside (SIGTERM, SIGHUP, the terminal
    /// closing); the loop ends after this returns.
    func terminate(reason: String)
}

extension TerminalProgram {
    /// Does nothing; the loop ends all the same.
    public func terminate(reason: String) {}
}

/// What the loop does after an event.
public enum ProgramAction: Sendable, Equatable {
    /// Go on.
    case `continue`
    /// End the loop.
    case quit
    /// Give the terminal back and stop the process (Ctrl-Z); when the shell
    /// continues it, take the terminal over and draw everything again.
    case suspend
}

/// What a ``TerminalProgram/render(_:)`` draws for.
public struct RenderContext: Sendable {
    /// The screen's size.
    public var size: TerminalSize
    /// Counts animation steps (spinners) while a frame asks to animate; it
    /// does not move otherwise.
    public var tick: Int

    /// A context for a screen of `size`; `tick` is the animation step, 0 when
    /// nothing has animated yet.
    public init(size: TerminalSize, tick: Int = 0) {
        self.size = size
        self.tick = tick
    }

    /// A blank buffer the size of the screen.
    public func makeBuffer() -> ScreenBuffer {
        ScreenBuffer(width: size.columns, height: size.rows)
    }
}

/// One drawn screen: the cells, and what the loop should do while it shows.
public struct Frame: Sendable {
    /// Every cell of the screen; the loop writes those that differ from the
    /// frame on screen.
    public var buffer: ScreenBuffer
    /// Whether something on it moves by itself (a spinner): the loop then
    /// draws again after its tick interval. While false, no timer runs.
    public var isAnimating: Bool
    /// The work this frame asks for while it shows (see ``FrameTask``).
    public var tasks: [FrameTask]

    /// A frame showing `buffer`; by default it does not animate and asks for no tasks.
    public init(_ buffer: ScreenBuffer, isAnimating: Bool = false, tasks: [FrameTask] = []) {
        self.buffer = buffer
        self.isAnimating = isAnimating
        self.tasks = tasks
    }
}

extension Frame {
    /// The spinner glyph for `tick`; the frame now animates, so the loop
    /// draws the next glyph after its tick interval.
    public mutating func spinner(at tick: Int) -> Character {
        isAnimating = true
        return Spinner.glyph(at: tick)
    }

    /// Asks for `operation` while frames list `id` (see ``FrameTask``).
    public mutating func task(id: String, _ operation: @escaping @MainActor @Sendable () async -> Void) {
        tasks.append(FrameTask(id: id, operation: operation))
    }
}
