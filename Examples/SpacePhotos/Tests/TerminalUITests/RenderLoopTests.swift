import BaselineConcurrency
import Clocks
import Observation
import Testing

@testable import TerminalUI

/// A terminal in memory: frames are collected, and a test awaits each write.
final class MemoryTerminal: TerminalOutput {
    let size: TerminalSize
    let colors = FrameEncoder.ColorSupport.trueColor
    let (writes, writeSink) = AsyncStream.makeStream(of: [UInt8].self)
    let suspensions = LockedValue(0)

    init(columns: Int = 20, rows: Int = 3) {
        size = TerminalSize(columns: columns, rows: rows)
    }

    func write(_ bytes: [UInt8]) {
        if !bytes.isEmpty { writeSink.yield(bytes) }
    }

    func suspend() {
        suspensions.withLock { $0 += 1 }
    }
}

@MainActor
@Observable
final class CounterModel {
    var count = 0
    var isBusy = false
}

@MainActor
final class CounterProgram: TerminalProgram {
    let model: CounterModel
    var renders = 0
    var terminatedBecause: String?

    init(model: CounterModel) {
        self.model = model
    }

    func render(_ context: RenderContext) -> Frame {
        renders += 1
        var buffer = context.makeBuffer()
        buffer.write("count \(model.count)", at: 0, 0)
        if model.isBusy { buffer.write(String(Spinner.glyph(at: context.tick)), at: 0, 1) }
        return Frame(buffer, isAnimating: model.isBusy)
    }

    func handle(_ event: InputEvent) -> ProgramAction {
        switch event {
        case .key(KeyPress(.character("+"))): model.count += 1
        case .key(KeyPress(.character("q"))): return .quit
        case .key(KeyPress(.character("z"), modifiers: .control)): return .suspend
        default: break
        }
        return .continue
    }

    func terminate(reason: String) {
        terminatedBecause = reason
    }
}

@MainActor
@Suite("RenderLoop")
struct RenderLoopTests {
    let model = CounterModel()
    let terminal = MemoryTerminal()
    let events: AsyncStream<TerminalEvent>
    let eventSink: AsyncStream<TerminalEvent>.Continuation
    let clock = TestClock()

    init() {
        (events, eventSink) = AsyncStream.makeStream(of: TerminalEvent.self)
    }

    func makeLoop(_ program: CounterProgram) -> RenderLoop<AsyncStream<TerminalEvent>> {
        RenderLoop(program: program, output: terminal, events: events, clock: clock, frameInterval: .zero)
    }

    func text(_ bytes: [UInt8]?) -> String {
        String(decoding: bytes ?? [], as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "␛")
    }

    func press(_ character: Character) {
        eventSink.yield(.input([.key(.character(character))], receivedAt: .now))
    }

    @Test(.timeLimit(.minutes(2)))
    func drawsFirstInFullThenOnlyWhatAKeyChanged() async {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        loop.recordsLatency = true
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        #expect(text(await writes.next()).contains("␛[2Jcount␛[1;7H0"))
        press("+")
        #expect(text(await writes.next()) == "␛[?2026h␛[1;7H1␛[?2026l")
        #expect(model.count == 1)
        #expect(loop.latencies.count == 1)
        press("q")
        await running.value
        #expect(loop.lastFrame?.lines.first == "count 1             ")
    }

    @Test(.timeLimit(.minutes(2)))
    func aChangeFromOutsideIsDrawnAndABurstCostsOneFrame() async {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        _ = await writes.next()
        let rendersBefore = program.renders
        // A hundred changes in one main-actor turn, as a finished load makes.
        for _ in 0..<100 { model.count += 1 }
        #expect(text(await writes.next()) == "␛[?2026h␛[1;7H100␛[?2026l")
        #expect(program.renders == rendersBefore + 1)
        press("q")
        await running.value
    }

    @Test(.timeLimit(.minutes(2)))
    func aKeyIsAnsweredAtOnceWhileOtherChangesWaitForTheFrameBoundary() async {
        let program = CounterProgram(model: model)
        // An hour between frames: only a frame that skips the wait can come.
        let loop = RenderLoop(
            program: program,
            output: terminal,
            events: events,
            clock: clock,
            frameInterval: .seconds(3_600)
        )
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        _ = await writes.next()
        model.count += 1  // from outside: waits for the next frame boundary
        press("+")  // typed: drawn now, with the change before it
        #expect(text(await writes.next()) == "␛[?2026h␛[1;7H2␛[?2026l")
        press("q")
        await running.value
    }

    @Test(.timeLimit(.minutes(2)))
    func aSpinnerTicksOnlyWhileTheFrameAnimates() async throws {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        _ = await writes.next()
        model.isBusy = true
        #expect(text(await writes.next()).contains("⠋"))
        await clock.advance(by: .milliseconds(100))
        #expect(text(await writes.next()).contains("⠙"))
        // Busy: the next tick is scheduled. (The loop and this test share
        // the main actor, so a frame's write and its timer come together.)
        #expect(loop.isTickScheduled)
        model.isBusy = false
        #expect(text(await writes.next()) == "␛[?2026h␛[2;1H ␛[?2026l")
        // Idle: the pending tick was cancelled and no timer runs.
        #expect(!loop.isTickScheduled)
        press("q")
        await running.value
    }

    @Test(.timeLimit(.minutes(2)))
    func terminationTellsTheProgramAndEndsTheLoop() async {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        let running = Task { await loop.run() }
        eventSink.yield(.terminate(reason: "SIGTERM"))
        await running.value
        #expect(program.terminatedBecause == "SIGTERM")
    }

    @Test(.timeLimit(.minutes(2)))
    func suspendingRedrawsInFullOnReturn() async {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        _ = await writes.next()
        eventSink.yield(.input([.key(.character("z"), .control)], receivedAt: .now))
        #expect(text(await writes.next()).contains("␛[2Jcount␛[1;7H0"))
        #expect(terminal.suspensions.current == 1)
        press("q")
        await running.value
    }

    @Test(.timeLimit(.minutes(2)))
    func aResizeRedrawsInFullAtTheNewSize() async {
        let program = CounterProgram(model: model)
        let loop = makeLoop(program)
        let running = Task { await loop.run() }
        var writes = terminal.writes.makeAsyncIterator()
        _ = await writes.next()
        eventSink.yield(.resize(TerminalSize(columns: 8, rows: 2)))
        #expect(text(await writes.next()) == "␛[?2026h␛[0m␛[H␛[2Jcount␛[1;7H0␛[?2026l")
        press("q")
        await running.value
    }
}
