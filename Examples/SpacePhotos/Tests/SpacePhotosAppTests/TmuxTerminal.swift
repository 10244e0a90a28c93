import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real terminal for end-to-end tests: a tmux server of the test's own
/// (its own socket, no user configuration) running one window of a fixed
/// size, driven through tmux's control mode.
///
/// Control mode reports every output of the program (`%output`), so a test
/// waits for screen content as an event: after each output it reads the
/// screen (`capture-pane`) and checks it again. Nothing waits for time.
final class TmuxTerminal {
    enum Failure: Error, CustomStringConvertible {
        case tmuxMissing
        case commandFailed(String, [String])
        case ended(lastScreen: String)
        case cancelled(waitingFor: String, lastScreen: String)

        var description: String {
            switch self {
            case .tmuxMissing: "tmux is needed for the end-to-end tests (apt-get install tmux)."
            case let .commandFailed(command, output): "tmux \(command) failed: \(output.joined(separator: "\n"))"
            case let .ended(screen): "tmux ended. The last screen:\n\(screen)"
            case let .cancelled(waitingFor, screen): "Gave up waiting for \(waitingFor). The last screen:\n\(screen)"
            }
        }
    }

    let socket = "baseline-e2e-\(UUID().uuidString.prefix(8))"
    let session = "app"
    private let client: SpawnedProcess
    private var lines: AsyncStream<String>.Iterator
    private var outputsSeen = 0
    private var lastScreen = ""

    /// Starts tmux with a `columns` × `rows` window running `command` (a
    /// shell command line).
    init(columns: Int, rows: Int, command: String, environment: [String: String]) throws {
        guard
            let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
                .first(where: FileManager.default.isExecutableFile(atPath:))
        else { throw Failure.tmuxMissing }
        var environment = environment
        environment["TMUX"] = nil
        let (stream, sink) = AsyncStream.makeStream(of: String.self)
        let splitter = LineSplitter(sink: sink)
        client = try SpawnedProcess(
            path: tmux,
            arguments: [
                "-L", socket, "-f", "/dev/null", "-C",
                "new-session", "-s", session, "-x", String(columns), "-y", String(rows), command,
            ],
            environment: environment,
            onOutput: splitter.append,
            onEnd: { sink.finish() }
        )
        lines = stream.makeAsyncIterator()
    }

    /// Runs a tmux command and returns what it printed.
    @discardableResult
    func run(_ command: String) async throws -> [String] {
        Self.trace("> " + command)
        client.write(command + "\n")
        var inBlock = false
        var result: [String] = []
        while let line = await lines.next() {
            if line.hasPrefix("%begin "), line.hasSuffix(" 1") {
                inBlock = true
            } else if inBlock, line.hasPrefix("%end ") || line.hasPrefix("%error ") {
                if line.hasPrefix("%error ") { throw Failure.commandFailed(command, result) }
                return result
            } else if inBlock {
                result.append(line)
            } else if line.hasPrefix("%output ") {
                outputsSeen += 1
            } else if line.hasPrefix("%exit") {
                throw Failure.ended(lastScreen: lastScreen)
            }
        }
        throw Failure.ended(lastScreen: lastScreen)
    }

    /// The screen's text now, a line per row (trailing spaces trimmed by tmux).
    func screen() async throws -> String {
        lastScreen = try await run("capture-pane -p -t \(session)").joined(separator: "\n")
        return lastScreen
    }

    /// Waits until the screen satisfies `condition`, reading it again after
    /// each output of the program; returns that screen. The test's time
    /// limit ends a wait that never succeeds, with the last screen in the error.
    @discardableResult
    func waitForScreen(_ what: String, _ condition: (String) -> Bool) async throws -> String {
        while true {
            let seen = outputsSeen
            let screen = try await screen()
            if condition(screen) { return screen }
            if outputsSeen == seen { try await nextOutput(waitingFor: what) }
        }
    }

    /// Waits until `text` shows.
    @discardableResult
    func waitFor(_ text: String) async throws -> String {
        try await waitForScreen("“\(text)”") { $0.contains(text) }
    }

    private func nextOutput(waitingFor what: String) async throws {
        while let line = await lines.next() {
            if line.hasPrefix("%output ") {
                outputsSeen += 1
                return
            }
            if line.hasPrefix("%exit") { throw Failure.ended(lastScreen: lastScreen) }
        }
        if Task.isCancelled { throw Failure.cancelled(waitingFor: what, lastScreen: lastScreen) }
        throw Failure.ended(lastScreen: lastScreen)
    }

    /// Types `text` as it is (UTF-8 included).
    func type(_ text: String) async throws {
        try await run("send-keys -t \(session) -l \(Self.quoted(text))")
    }

    /// Presses keys by tmux's names (`Enter`, `Escape`, `BSpace`, `C-c`, `Up`).
    func press(_ keys: String...) async throws {
        try await run("send-keys -t \(session) " + keys.joined(separator: " "))
    }

    /// A tmux format about the pane (`#{alternate_on}`).
    func format(_ format: String) async throws -> String {
        try await run("display-message -p -t \(session) \(Self.quoted(format))").joined()
    }

    /// Ends the tmux server, and returns when its client has ended.
    func close() async {
        _ = try? await run("kill-server")
        // A control client ends when its input does.
        client.closeInput()
        while await lines.next() != nil {}
        client.wait()
    }

    deinit {
        // A failed test ends here without `close()`: leave no server behind.
        if let killer = try? SpawnedProcess(
            path: client.path,
            arguments: ["-L", socket, "kill-server"],
            environment: ProcessInfo.processInfo.environment,
            onOutput: { _ in },
            onEnd: {}
        ) {
            killer.closeInput()
            killer.wait()
        }
        client.closeInput()
    }

    /// With `E2E_TRACE=<file>`, what is said to tmux and what it answers
    /// is appended to that file (for a test that fails).
    static func trace(_ line: @autoclosure () -> String) {
        guard let path = ProcessInfo.processInfo.environment["E2E_TRACE"] else { return }
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data((String(line().prefix(200)) + "\n").utf8))
        try? handle.close()
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Splits control-mode output into lines.
final class LineSplitter: @unchecked Sendable {  // safety: `pending` is touched only by the one reader thread
    private var pending = Data()
    private let sink: AsyncStream<String>.Continuation

    init(sink: AsyncStream<String>.Continuation) {
        self.sink = sink
    }

    func append(_ data: Data) {
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[pending.startIndex..<newline]
            TmuxTerminal.trace("< " + String(decoding: line, as: UTF8.self))
            sink.yield(String(decoding: line, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r")))
            pending.removeSubrange(pending.startIndex...newline)
        }
    }
}

/// A child process started with posix_spawn and a clean signal state.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, and
/// the test's threads block most signals: a tmux server started that way
/// (and every program in its panes) would ignore SIGTERM and SIGCHLD. Here
/// the child starts with no signal blocked and every handler at default, as
/// from a shell.
// safety: the fds and pid are set once in init; `wait` runs once, from the owner.
final class SpawnedProcess: @unchecked Sendable {
    let path: String
    let pid: pid_t
    private let input: Int32
    private var inputOpen = true
    private var waited = false

    init(
        path: String,
        arguments: [String],
        environment: [String: String],
        onOutput: @escaping @Sendable (Data) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) throws {
        self.path = path
        var inputPipe: [Int32] = [0, 0]
        var outputPipe: [Int32] = [0, 0]
        guard pipe(&inputPipe) == 0, pipe(&outputPipe) == 0 else { throw POSIXError(.EMFILE) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for descriptor in inputPipe + outputPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        close(inputPipe[0])
        close(outputPipe[1])
        guard result == 0 else {
            close(inputPipe[1])
            close(outputPipe[0])
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
        }
        self.pid = pid
        self.input = inputPipe[1]
        let output = outputPipe[0]
        // A thread of its own that blocks in read(2): the test's tasks never
        // block, and every byte is taken as soon as it comes.
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                onOutput(Data(buffer[0..<count]))
            }
            close(output)
            onEnd()
        }.start()
    }

    func write(_ text: String) {
        guard inputOpen else { return }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(input, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    func closeInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(input)
    }

    /// Reaps the process once it has ended.
    func wait() {
        guard !waited else { return }
        waited = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}

/// `write(2)`, named apart from the methods called `write`.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
