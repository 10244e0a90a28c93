import BaselineConcurrency
import Dispatch
import Observation

/// Runs a ``TerminalProgram``: hands it the terminal's events, and draws a
/// frame whenever the state it read changes: at once after input, otherwise
/// at most once per ``frameInterval``.
///
/// The pipeline, all on the main actor:
/// 1. Events (keys, pastes, resizes) go to the program's `handle`.
/// 2. `render` runs inside `withObservationTracking`; a change to anything it
///    read marks the frame dirty (the one-shot `onChange` is armed again by
///    each render). Bursts of changes cost one frame.
/// 3. The new buffer is diffed with the one on screen by the
///    ``FrameEncoder``, and the difference is written in one write.
///
/// Nothing runs while nothing changes: no polling, and the tick timer runs
/// only while a frame says it animates (a spinner).
///
/// ```swift
/// try await withTerminal { terminal in
///     await RenderLoop(program: app, output: terminal, events: TerminalEvents(session: terminal)).run()
/// }
/// ```
@MainActor
public final class RenderLoop<Events: AsyncSequence & Sendable> where Events.Element == TerminalEvent {
    private enum LoopEvent: Sendable {
        case terminal(TerminalEvent)
        case invalidated
        case frameDue
        case tick
        case eventsEnded
    }

    private let program: any TerminalProgram
    private let output: any TerminalOutput
    private let events: Events
    /// Times frames and ticks in tests; `nil` for real time (see `init`).
    private let clock: (any Clock<Duration>)?
    private let timerQueue = DispatchQueue(label: "baseline.render-loop.timers")
    /// The shortest time between two frames.
    public let frameInterval: Duration
    /// The time between two animation ticks.
    public let tickInterval: Duration

    private let (loopEvents, loopSink) = AsyncStream.makeStream(of: LoopEvent.self, bufferingPolicy: .unbounded)
    /// Set by `onChange`, cleared by each render: one wake-up per frame.
    private let dirty = LockedValue(false)
    /// Whether the last tracking still waits for a change. While it does, a
    /// frame of the same screen (a tick, a no-op) renders without tracking
    /// again, so registrations do not pile up; a full redraw (new size)
    /// tracks anew, since it may read other state.
    private let tracking = LockedValue(false)
    private var size: TerminalSize
    private var encoder: FrameEncoder
    private var onScreen: ScreenBuffer?
    private var lastFrameAt: ContinuousClock.Instant?
    /// The frame waiting for its boundary, if one is.
    private var frameTimer: LoopTimer?
    /// The frames' tasks, by id (finished ones stay until their id leaves).
    private var frameTasks: [String: Task<Void, Never>] = [:]
    /// Sleeps until the next animation tick, while a frame animates.
    private var tickTimer: LoopTimer?
    private var tick = 0
    /// Whether a tick is scheduled (for tests: the timer runs only while a
    /// frame animates).
    var isTickScheduled: Bool { tickTimer != nil }
    private var inputWaitingForFrame: ContinuousClock.Instant?
    private var stopped = false

    /// The last frame drawn (for tests, and for the app's own checks).
    public private(set) var lastFrame: ScreenBuffer?
    /// For each input read, the time from reading it to the end of the write
    /// of the first frame after it was handled. Kept when
    /// ``recordsLatency`` is on.
    public private(set) var latencies: [Duration] = []
    /// Whether ``latencies`` are kept.
    public var recordsLatency = false
    /// How many frames were written, and their bytes.
    public private(set) var framesWritten = 0
    /// How many bytes those frames took, all together.
    public private(set) var bytesWritten = 0

    /// - Parameters:
    ///   - clock: Times the frame pacing and the animation ticks, for tests
    ///     (a test clock). Without one they run on a dispatch timer of the
    ///     loop's own, not on `Task.sleep`: a sleeping task wakes up through
    ///     Swift's cooperative pool, and a frame must not wait behind CPU-bound
    ///     work there (decoding a large image, say).
    public init(
        program: any TerminalProgram,
        output: any TerminalOutput,
        events: Events,
        clock: (any Clock<Duration>)? = nil,
        frameInterval: Duration = .milliseconds(16),
        tickInterval: Duration = .milliseconds(100)
    ) {
        self.program = program
        self.output = output
        self.events = events
        self.clock = clock
        self.frameInterval = frameInterval
        self.tickInterval = tickInterval
        self.size = output.size
        self.encoder = FrameEncoder(colors: output.colors)
    }

    /// Runs until the program quits, the terminal events end, or the
    /// calling task is cancelled.
    public func run() async {
        let forward = Task { [events, loopSink] in
            do {
                for try await event in events { loopSink.yield(.terminal(event)) }
            } catch {}
            loopSink.yield(.eventsEnded)
        }
        defer {
            forward.cancel()
            frameTimer?.cancel()
            tickTimer?.cancel()
            for task in frameTasks.values { task.cancel() }
            frameTasks = [:]
            loopSink.finish()
        }
        draw()
        await withTaskCancellationHandler {
            for await event in loopEvents {
                handle(event)
                if stopped { break }
            }
        } onCancel: { [loopSink] in
            loopSink.finish()
        }
    }

    /// Gives the terminal back until the process is continued, then draws
    /// everything again, at the terminal's size then.
    private func suspend() {
        output.suspend()
        onScreen = nil
        size = output.size
    }

    /// Starts the tasks whose ids are new, cancels those whose ids are gone.
    private func updateTasks(_ tasks: [FrameTask]) {
        guard !tasks.isEmpty || !frameTasks.isEmpty else { return }
        var wanted = Set<String>()
        for task in tasks {
            wanted.insert(task.id)
            if frameTasks[task.id] == nil {
                frameTasks[task.id] = Task { await task.operation() }
            }
        }
        for (id, task) in frameTasks where !wanted.contains(id) {
            task.cancel()
            frameTasks[id] = nil
        }
    }

    private func handle(_ event: LoopEvent) {
        switch event {
        case let .terminal(.input(inputs, receivedAt)):
            for input in inputs {
                switch program.handle(input) {
                case .continue:
                    continue
                case .quit:
                    stopped = true
                    return
                case .suspend:
                    suspend()
                }
            }
            if inputWaitingForFrame == nil { inputWaitingForFrame = receivedAt }
            requestFrame()
        case let .terminal(.resize(newSize)):
            size = newSize
            onScreen = nil  // a full redraw
            requestFrame()
        case .terminal(.suspend):
            suspend()
            requestFrame()
        case let .terminal(.terminate(reason)):
            program.terminate(reason: reason)
            stopped = true
        case .eventsEnded:
            stopped = true
        case .invalidated:
            requestFrame()
        case .frameDue:
            frameTimer = nil
            draw()
        case .tick:
            tickTimer = nil
            tick += 1
            requestFrame(force: true)
        }
    }

    /// Draws now, or at the next frame boundary when the last frame was
    /// less than ``frameInterval`` ago. A frame someone typed for is drawn
    /// at once: the interval is there to fold bursts of changes nobody waits
    /// for (a load's progress) into one frame, not to delay an echo.
    private func requestFrame(force: Bool = false) {
        if inputWaitingForFrame != nil {
            // A frame already scheduled still comes; it finds little to write.
            draw()
            return
        }
        guard frameTimer == nil else { return }
        guard force || dirty.current || onScreen == nil else { return }
        let now = ContinuousClock.now
        if let lastFrameAt, now < lastFrameAt + frameInterval {
            frameTimer = schedule(.frameDue, after: lastFrameAt + frameInterval - now)
        } else {
            draw()
        }
    }

    /// Sends `event` to the loop after `delay`; cancelling the returned
    /// timer drops it.
    private func schedule(_ event: LoopEvent, after delay: Duration) -> LoopTimer {
        guard let clock else {
            let timer = LoopTimer()
            let (seconds, attoseconds) = delay.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            timerQueue.asyncAfter(deadline: .now() + .nanoseconds(max(0, nanoseconds))) { [loopSink] in
                if !timer.isCancelled { loopSink.yield(event) }
            }
            return timer
        }
        let task = Task { [loopSink] in
            do {
                try await clock.sleep(for: delay)
                loopSink.yield(event)
            } catch {
                // Cancelled: the event is no longer wanted.
            }
        }
        return LoopTimer(task: task)
    }

    private func draw() {
        dirty.withLock { $0 = false }
        let context = RenderContext(size: size, tick: tick)
        let frame: Frame
        if tracking.current, onScreen != nil {
            frame = program.render(context)
        } else {
            tracking.withLock { $0 = true }
            frame = withObservationTracking {
                program.render(context)
            } onChange: { [dirty, tracking, loopSink] in
                // Fires once, before the change is made; the loop draws after it.
                tracking.withLock { $0 = false }
                let first = dirty.withLock { wasDirty in
                    defer { wasDirty = true }
                    return !wasDirty
                }
                if first { loopSink.yield(.invalidated) }
            }
        }
        let bytes = encoder.encode(frame.buffer, over: onScreen)
        output.write(bytes)
        let finished = ContinuousClock.now
        lastFrameAt = finished
        if !bytes.isEmpty {
            framesWritten += 1
            bytesWritten += bytes.count
        }
        if let started = inputWaitingForFrame {
            inputWaitingForFrame = nil
            if recordsLatency { latencies.append(finished - started) }
        }
        onScreen = frame.buffer
        lastFrame = frame.buffer
        updateTasks(frame.tasks)
        if frame.isAnimating {
            if tickTimer == nil { tickTimer = schedule(.tick, after: tickInterval) }
        } else {
            // Nothing moves: no timer runs.
            tickTimer?.cancel()
            tickTimer = nil
        }
    }
}

/// A scheduled loop event: a dispatch timer's flag, or a sleeping task.
final class LoopTimer: Sendable {
    private let cancelled = LockedValue(false)
    private let task: Task<Void, Never>?

    init(task: Task<Void, Never>? = nil) {
        self.task = task
    }

    var isCancelled: Bool { cancelled.current }

    func cancel() {
        cancelled.withLock { $0 = true }
        task?.cancel()
    }
}
