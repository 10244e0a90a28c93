import BaselineConcurrency
import CTerminalSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal the app has taken over: raw mode, the alternate screen, the
/// cursor hidden, bracketed paste on, line wrap off. ``restore()`` gives it
/// back as it was, and is safe to call any number of times, from any thread.
///
/// Use ``withTerminal(input:output:_:)``, which restores the terminal however
/// its body ends; a crash (a Swift trap, a bad access) restores it too,
/// through signal handlers armed on entry.
public final class TerminalSession: Sendable {
    /// The bytes that put the terminal in the app's modes: the alternate
    /// screen, cursor hidden, bracketed paste, no automatic line wrap.
    public static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[?7l\u{1B}[0m\u{1B}[H\u{1B}[2J"
    /// The bytes that undo ``enterSequence``, in reverse order.
    public static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"

    /// Where keys come from.
    public let input: Int32
    /// Where frames go.
    public let output: Int32

    private struct State: Sendable {
        var saved: termios
        var isActive: Bool
    }
    private let state: LockedValue<State>

    /// Takes the terminal over.
    ///
    /// - Throws: ``TerminalError/notATerminal`` when `input` or `output` is
    ///   not a terminal, ``TerminalError/system(call:errno:)`` when a mode
    ///   cannot be set (the terminal is left as it was).
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws(TerminalError) {
        guard isatty(input) == 1, isatty(output) == 1 else { throw .notATerminal }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { throw .system(call: "tcgetattr", errno: errno) }
        self.input = input
        self.output = output
        self.state = LockedValue(State(saved: saved, isActive: false))
        try enter()
    }

    deinit {
        restore()
    }

    /// Whether the app has the terminal (entered, not restored).
    public var isActive: Bool { state.current.isActive }

    /// Puts the terminal in the app's modes (again, after ``restore()``).
    public func enter() throws(TerminalError) {
        try state.withLock { (state: inout State) throws(TerminalError) in
            guard !state.isActive else { return }
            var raw = state.saved
            // cfmakeraw, spelled out: no echo, no line editing, no signals from
            // keys (Ctrl-C and Ctrl-Z arrive as keys), no CR/LF translation.
            raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
            raw.c_oflag &= ~tcflag_t(OPOST)
            raw.c_cflag |= tcflag_t(CS8)
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else { throw .system(call: "tcsetattr", errno: errno) }
            var saved = state.saved
            let leave = Array(Self.leaveSequence.utf8)
            _ = leave.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    baseline_terminal_arm_crash_restore(input, output, &saved, chars.baseAddress, chars.count)
                }
            }
            state.isActive = true
            Self.writeAll(Array(Self.enterSequence.utf8), to: output)
        }
    }

    /// Gives the terminal back: its saved modes first (so a shell gets a sane
    /// terminal even if the rest fails), then the sequence that leaves the
    /// app's screen modes. Idempotent; every step is tried.
    public func restore() {
        state.withLock { state in
            guard state.isActive else { return }
            state.isActive = false
            baseline_terminal_disarm_crash_restore()
            var saved = state.saved
            _ = tcsetattr(input, TCSAFLUSH, &saved)
            Self.writeAll(Array(Self.leaveSequence.utf8), to: output)
        }
    }

    /// Writes a frame, whole; nothing once the terminal has been restored
    /// (a frame drawn after a SIGTERM must not land on the user's shell).
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        state.withLock { state in
            guard state.isActive else { return }
            Self.writeAll(bytes, to: output)
        }
    }

    /// Ctrl-Z (or a SIGTSTP from outside): gives the terminal back, stops
    /// the process as the shell expects, and takes the terminal over again
    /// when the shell continues it (`fg`). Returns after that; the caller
    /// redraws everything.
    public func suspend() {
        restore()
        // SIGTSTP's default action stops the process; ``TerminalEvents``
        // ignores it to hear of it, so put the default back for this one.
        let previous = signal(SIGTSTP, SIG_DFL)
        kill(getpid(), SIGTSTP)  // stops here until SIGCONT
        signal(SIGTSTP, previous)
        try? enter()
    }

    /// The terminal's size now.
    public var size: TerminalSize {
        TerminalSize.of(descriptor: output) ?? TerminalSize(columns: 80, rows: 24)
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return  // the terminal is gone; nothing to tell it
                }
                pointer += written
                remaining -= written
            }
        }
    }
}

/// `write(2)`, named apart from the methods called `write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Why the terminal could not be taken over.
public enum TerminalError: Error, Equatable, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe, a file).
    case notATerminal
    /// A system call failed.
    case system(call: String, errno: Int32)

    /// One sentence for the user; a failed call names it and the system's reason.
    public var description: String {
        switch self {
        case .notATerminal: "Standard input and output must be a terminal."
        case let .system(call, code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Runs `body` with the terminal taken over, and gives the terminal back
/// however `body` ends: returning, throwing, or cancelled.
///
/// ```swift
/// try await withTerminal { terminal in
///     let loop = RenderLoop(program: app, output: terminal, events: TerminalEvents(session: terminal))
///     await loop.run()
/// }
/// ```
public func withTerminal<T>(
    input: Int32 = STDIN_FILENO,
    output: Int32 = STDOUT_FILENO,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TerminalSession) async throws -> T
) async throws -> T {
    let session = try TerminalSession(input: input, output: output)
    defer { session.restore() }
    return try await body(session)
}
