import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `spacephotos` binary in a real terminal (tmux), against its
/// embedded server: what a person does, step by step, checked on the screen.
@Suite("spacephotos in a terminal", .serialized, .timeLimit(.minutes(5)))
struct AppEndToEndTests {
    /// A run of the app in a fresh tmux, with a data directory of the test's.
    struct Run {
        let terminal: TmuxTerminal
        let directory: URL

        /// The shell line in the pane: records the terminal's modes before
        /// and after the app, its exit status and its pid (the inner shell
        /// execs the app), then prints a line the test waits for and stays
        /// (so the pane, and its state, stay until the test is done).
        static func start(
            in directory: URL,
            program: String = "spacephotos",
            arguments: [String] = [],
            columns: Int = 120,
            rows: Int = 40
        ) throws -> Run {
            let binary = try AppEndToEndTests.binary(program)
            let d = TmuxTerminal.quoted(directory.path)
            let app = ([binary.path] + arguments).map(TmuxTerminal.quoted).joined(separator: " ")
            let script = """
                cd \(d) && stty -g > before && sh -c 'echo $$ > pid; exec "$@"' app \(app); \
                echo $? > status; stty -g > after; echo "THE APP HAS ENDED"; exec cat
                """
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
            environment["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
            environment["COLORTERM"] = "truecolor"
            // A crash's backtrace is printed, not offered for interaction.
            environment["SWIFT_BACKTRACE"] = "interactive=no"
            environment["SPACEPHOTOS_LATENCY_LOG"] =
                directory.appendingPathComponent("latency-\(UUID().uuidString.prefix(6)).txt").path
            let terminal = try TmuxTerminal(
                columns: columns,
                rows: rows,
                command: "sh -c \(TmuxTerminal.quoted(script))",
                environment: environment
            )
            return Run(terminal: terminal, directory: directory)
        }

        /// Waits for the app to end, then checks that the terminal is as it
        /// was: the same termios (raw mode undone), the main screen back,
        /// the cursor shown; and that it ended with one of `expected`
        /// (`nil`: any status but 0).
        func expectTerminalRestored(exitStatus expected: Set<String>? = ["0"]) async throws {
            try await terminal.waitFor("THE APP HAS ENDED")
            let before = try String(contentsOf: directory.appendingPathComponent("before"), encoding: .utf8)
            let after = try String(contentsOf: directory.appendingPathComponent("after"), encoding: .utf8)
            #expect(before == after, "the terminal's modes are restored")
            #expect(try await terminal.format("#{alternate_on}") == "0", "the alternate screen is left")
            #expect(try await terminal.format("#{cursor_flag}") == "1", "the cursor is shown")
            let status = try String(contentsOf: directory.appendingPathComponent("status"), encoding: .utf8)
            let ended = status.trimmingCharacters(in: .whitespacesAndNewlines)
            if let expected {
                #expect(expected.contains(ended))
            } else {
                #expect(ended != "0", "the process died of its crash")
            }
        }

        func pid() throws -> Int32 {
            let text = try String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8)
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
    }

    /// An executable of this package built beside the test bundle.
    static func binary(_ name: String = "spacephotos") throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw BinaryMissing(searched: candidates.map(\.path))
        }
        return found
    }

    struct BinaryMissing: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "No binary at \(searched); build it first (swift build --package-path Examples/SpacePhotos)."
        }
    }

    func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spacephotos-e2e-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The detail box's title on the Photos tab: the selected photo.
    static func selectedTitle(on screen: String) -> String? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains("╭ Photos ") }),
            let start = line.range(of: "╮╭ ")?.upperBound,
            let end = line[start...].range(of: " ─")?.lowerBound
        else { return nil }
        return String(line[start..<end])
    }

    @Test func aPersonUsesEveryScreen() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        // 1. First start: the login screen; a wrong password, then the right one.
        var run = try Run.start(in: directory, arguments: ["--slow-fact", "3"])
        let t = run.terminal
        try await t.waitFor("Log in to SpacePhotos")
        try await t.type("astro")
        try await t.press("Tab")
        try await t.type("wrong")
        try await t.waitFor("•••••")
        try await t.press("Enter")
        try await t.waitFor("The ID or password is incorrect.")
        try await t.press("BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
        try await t.type("stardust-42")
        try await t.press("Enter")
        try await t.waitForScreen("the main screen") { $0.contains("1 Photos") && $0.contains("★ Astro") }

        // 2. To-dos: add one in Japanese, then edit it in place; wide
        // characters take two cells, so the box's right edge stays put.
        try await t.press("3")
        try await t.waitFor("Nothing to do. Press a to add a to-do.")
        try await t.press("a")
        try await t.type("富士山に登る")
        try await t.press("Enter")
        let added = try await t.waitFor("│ #1  富士山に登る")
        let row = added.split(separator: "\n").first { $0.contains("#1  富士山に登る") }
        #expect(row.map(String.init) == "│ #1  富士山に登る" + String(repeating: " ", count: 101) + "│")
        try await t.press("Escape")
        try await t.waitFor("a add")
        try await t.press("e")
        try await t.waitFor("Enter save")
        try await t.type("（山頂）")
        try await t.press("Enter")
        // Saved and no longer edited (the field shows the same row while it
        // saves, and keys typed then would go into it).
        try await t.waitForScreen("the edit saved") { $0.contains("│ #1  富士山に登る（山頂）  ") && $0.contains("e edit") }

        // Two more, then the search: typing narrows the list as it goes (the
        // title counts the matches, ASCII letters in either case); Esc
        // clears it and lists everything again.
        try await t.press("a")
        try await t.type("Buy milk")
        try await t.press("Enter")
        try await t.waitFor("│ #2  Buy milk")
        try await t.type("Mount the telescope")
        try await t.press("Enter")
        try await t.waitFor("│ #3  Mount the telescope")
        try await t.press("Escape")
        try await t.waitFor("a add")
        try await t.type("/")
        try await t.waitFor("Esc clear the search")
        try await t.type("TELE")
        let narrowed = try await t.waitForScreen("the list narrowed to the telescope") {
            $0.contains("Find: TELE") && $0.contains("To-dos (1 matching)")
        }
        #expect(narrowed.contains("│ #3  Mount the telescope"))
        #expect(!narrowed.contains("Buy milk") && !narrowed.contains("富士山"))
        try await t.press("Escape")
        let everything = try await t.waitForScreen("the whole list again") { $0.contains("To-dos (3)") }
        #expect(everything.contains("Buy milk") && everything.contains("富士山に登る（山頂）"))
        #expect(everything.contains("Find: press / to search"))

        // 3. The counter: a fact, then a slow one cancelled with Esc.
        try await t.press("4")
        try await t.waitFor("Press r for a fact about 0.")
        try await t.press("r")
        try await t.waitFor("0 is the only number that is neither positive nor negative.")
        try await t.press("+", "+", "+")
        try await t.waitFor("Press r for a fact about 3.")
        try await t.press("r")
        try await t.waitFor("Fetching a fact about 3…")
        try await t.press("Escape")
        try await t.waitFor("Press r for a fact about 3.")

        // 4. Photos: save the selected one, find it on the Saved tab.
        try await t.press("1")
        let catalog = try await t.waitForScreen("the catalog and its Save button") {
            $0.contains("12 photos") && $0.contains("[ Save ]")
        }
        let title = try #require(Self.selectedTitle(on: catalog))
        try await t.press("s")
        try await t.waitFor("[ Unsave ]")
        try await t.press("2")
        let saved = try await t.waitFor("1 saved")
        #expect(saved.contains(title))

        // 5. Log out, and quit from the login screen.
        try await t.press("5")
        try await t.waitFor("[ Log out ]")
        try await t.press("o")
        try await t.waitFor("Log in to SpacePhotos")
        try await t.press("C-c")
        try await run.expectTerminalRestored()
        await t.close()

        // 6. Start again: logged out, so the login screen; log in and quit
        // with q. The last tab (Profile) and the count (3) were kept.
        run = try Run.start(in: directory)
        try await run.terminal.waitFor("Log in to SpacePhotos")
        try await run.terminal.type("astro")
        try await run.terminal.press("Tab")
        try await run.terminal.type("stardust-42")
        try await run.terminal.press("Enter")
        try await run.terminal.waitForScreen("the Profile tab, kept from the last launch") {
            $0.contains("★ Astro") && $0.contains("[ Log out ]")
        }
        try await run.terminal.press("4")
        try await run.terminal.waitFor("Press r for a fact about 3.")  // the count was kept
        try await run.terminal.press("3")
        try await run.terminal.waitFor("富士山に登る（山頂）")  // the to-do was kept
        try await run.terminal.press("q")
        try await run.expectTerminalRestored()
        await run.terminal.close()

        // 7. And again: the session was kept, so straight in, on the To-dos
        // tab where the last run ended; then SIGTERM.
        run = try Run.start(in: directory)
        try await run.terminal.waitForScreen("the To-dos tab, kept from the last launch") {
            $0.contains("★ Astro") && $0.contains("Find: press / to search") && $0.contains("富士山に登る（山頂）")
        }
        #expect(kill(try run.pid(), SIGTERM) == 0)
        try await run.expectTerminalRestored()
        await run.terminal.close()

        Self.reportLatencies(in: directory)
    }

    /// Logs in as astro on the login screen and waits for the main screen.
    static func logInAsAstro(_ run: Run) async throws {
        try await run.terminal.waitFor("Log in to SpacePhotos")
        try await run.terminal.type("astro")
        try await run.terminal.press("Tab")
        try await run.terminal.type("stardust-42")
        try await run.terminal.press("Enter")
        try await run.terminal.waitForScreen("the main screen") { $0.contains("1 Photos") && $0.contains("★ Astro") }
    }

    /// `spacephotos serve` in a process of its own, on a free port, until `stop()`.
    struct ServerProcess {
        let process: Process
        let url: String
        /// Signalled once the process has exited.
        let exited: DispatchSemaphore

        static func start(arguments: [String] = []) async throws -> ServerProcess {
            let process = Process()
            process.executableURL = try AppEndToEndTests.binary()
            process.arguments = ["serve", "--port", "0"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let (chunks, continuation) = AsyncStream<String>.makeStream()
            output.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    continuation.finish()
                } else {
                    continuation.yield(String(decoding: data, as: UTF8.self))
                }
            }
            // Foundation's termination handler, not `waitUntilExit()`: the
            // latter spins a run loop on the calling thread, which crashed
            // (a bad pointer in `__CFRunLoopModeIsEmpty`) on a test's
            // cooperative thread.
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            var text = ""
            for await chunk in chunks {
                text += chunk
                // "Serving on http://127.0.0.1:PORT — demo login: …"
                if let start = text.range(of: "Serving on ")?.upperBound,
                    let end = text[start...].firstIndex(of: " ")
                {
                    return ServerProcess(process: process, url: String(text[start..<end]), exited: exited)
                }
            }
            throw ServerDidNotStart(output: text)
        }

        /// Ends the server and waits until it has exited; a second call
        /// returns at once.
        func stop() {
            process.terminate()
            exited.wait()
            exited.signal()
        }
    }

    struct ServerDidNotStart: Error {
        var output: String
    }

    /// The catalog outlives the server: a launch that cannot reach it shows
    /// the list and the member kept on disk from the last one, marked offline.
    @Test func aLaunchWithoutTheServerShowsTheLastCatalogOffline() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess.start()
        var run = try Run.start(in: directory, arguments: ["--server", server.url])
        try await Self.logInAsAstro(run)
        try await run.terminal.press("1")
        let online = try await run.terminal.waitForScreen("the catalog") {
            $0.contains("12 photos") && $0.contains("[ Save ]")
        }
        let title = try #require(Self.selectedTitle(on: online))
        #expect(!online.contains("offline"))
        try await run.terminal.press("q")
        try await run.expectTerminalRestored()
        await run.terminal.close()

        server.stop()
        run = try Run.start(in: directory, arguments: ["--server", server.url])
        let offline = try await run.terminal.waitForScreen("the kept catalog, marked offline") {
            $0.contains("★ Astro") && $0.contains("12 photos · offline, as last seen")
        }
        #expect(Self.selectedTitle(on: offline) == title)
        try await run.terminal.press("q")
        try await run.expectTerminalRestored()
        await run.terminal.close()
    }

    /// The live favourites over the app's WebSocket: `f` asks the server,
    /// and the count on screen is the server's answer.
    @Test func aFavouriteIsToggledLive() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess.start()
        defer { server.stop() }
        let run = try Run.start(in: directory, arguments: ["--server", server.url])
        try await Self.logInAsAstro(run)
        try await run.terminal.press("1")
        try await run.terminal.waitForScreen("the live count") { $0.contains("☆ 0") && $0.contains("f favourite") }
        try await run.terminal.press("f")
        try await run.terminal.waitForScreen("the favourite, counted") {
            $0.contains("★ 1 · yours") && $0.contains("f unfavourite")
        }
        try await run.terminal.press("f")
        try await run.terminal.waitForScreen("the favourite, withdrawn") {
            $0.contains("☆ 0") && $0.contains("f favourite")
        }
        try await run.terminal.press("q")
        try await run.expectTerminalRestored()
        await run.terminal.close()
    }

    /// Two copies of the app, each with data of its own, logged in as the
    /// same member against one server (started with a photo seed, so both
    /// show the same catalog): a favourite set in one shows in the other,
    /// and a favourite withdrawn there shows back in the first.
    @Test func aFavouriteShowsLiveInASecondCopy() async throws {
        let firstDirectory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: firstDirectory) }
        let secondDirectory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: secondDirectory) }
        let server = try await ServerProcess.start(arguments: ["--photo-seed", "42"])
        defer { server.stop() }
        let first = try Run.start(in: firstDirectory, arguments: ["--server", server.url])
        let second = try Run.start(in: secondDirectory, arguments: ["--server", server.url])
        try await Self.logInAsAstro(first)
        try await Self.logInAsAstro(second)
        var titles: [String?] = []
        for run in [first, second] {
            try await run.terminal.press("1")
            let screen = try await run.terminal.waitForScreen("the live count") {
                $0.contains("☆ 0") && $0.contains("f favourite")
            }
            titles.append(Self.selectedTitle(on: screen))
        }
        #expect(titles[0] != nil)
        #expect(titles[0] == titles[1], "both copies show the same photo")

        try await first.terminal.press("f")
        try await second.terminal.waitForScreen("the first copy's favourite, in the second") {
            $0.contains("★ 1 · yours") && $0.contains("f unfavourite")
        }
        try await second.terminal.press("f")
        try await first.terminal.waitForScreen("the second copy's withdrawal, in the first") {
            $0.contains("☆ 0") && $0.contains("f favourite")
        }
        for run in [first, second] {
            try await run.terminal.press("q")
            try await run.expectTerminalRestored()
            await run.terminal.close()
        }
    }

    /// Two copies of the app, each with its own to-do database, logged in
    /// as the same member: an item added in one shows in the other, and its
    /// deletion there shows back in the first; the title says how the sync
    /// stands.
    @Test func aToDoAddedInOneCopyShowsInTheOther() async throws {
        let firstDirectory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: firstDirectory) }
        let secondDirectory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: secondDirectory) }
        let server = try await ServerProcess.start()
        defer { server.stop() }
        let first = try Run.start(in: firstDirectory, arguments: ["--server", server.url])
        let second = try Run.start(in: secondDirectory, arguments: ["--server", server.url])
        for run in [first, second] {
            try await Self.logInAsAstro(run)
            try await run.terminal.press("3")
            try await run.terminal.waitFor("To-dos (0) · synced, live")
        }
        try await first.terminal.press("a")
        try await first.terminal.type("Buy milk")
        try await first.terminal.press("Enter")
        try await first.terminal.waitFor("#1  Buy milk")
        try await first.terminal.press("Escape")
        // Back in the list before anything else is typed there: a key within
        // the Escape's quiet time (50 ms) would make Alt and that key of it.
        try await first.terminal.waitFor("a add")
        try await second.terminal.waitForScreen("the first copy's item, in the second") {
            $0.contains("To-dos (1) · synced, live") && $0.contains("#1  Buy milk")
        }
        try await second.terminal.press("Down")
        try await second.terminal.press("d")
        try await second.terminal.waitFor("Delete this to-do?")
        try await second.terminal.press("y")
        try await first.terminal.waitForScreen("the second copy's deletion, in the first") {
            $0.contains("To-dos (0) · synced, live") && $0.contains("Nothing to do.")
        }
        for run in [first, second] {
            try await run.terminal.press("q")
            try await run.expectTerminalRestored()
            await run.terminal.close()
        }
    }

    /// A copy started while the server is down keeps its list working,
    /// says it is offline, and sends what was added once the server is back.
    @Test func aCopyStartedWithoutTheServerCatchesUpWhenItReturns() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let otherDirectory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: otherDirectory) }
        // The server keeps its rows and its token key in files: restarted,
        // it knows the member's rows and accepts the copy's token.
        let kept = [
            "--sync-database", directory.appendingPathComponent("server-sync.sqlite").path,
            "--token-key-file", directory.appendingPathComponent("server-token.key").path,
        ]
        var server = try await ServerProcess.start(arguments: kept)
        var run = try Run.start(in: directory, arguments: ["--server", server.url])
        try await Self.logInAsAstro(run)
        try await run.terminal.press("3")
        try await run.terminal.waitFor("To-dos (0) · synced, live")
        try await run.terminal.press("q")
        try await run.expectTerminalRestored()
        await run.terminal.close()

        server.stop()
        run = try Run.start(in: directory, arguments: ["--server", server.url])
        try await run.terminal.waitFor("★ Astro")
        try await run.terminal.press("3")
        try await run.terminal.waitFor("· offline")
        try await run.terminal.press("a")
        try await run.terminal.type("Written offline")
        try await run.terminal.press("Enter")
        try await run.terminal.waitFor("#1  Written offline")
        try await run.terminal.press("Escape")
        try await run.terminal.waitFor("a add")
        try await run.terminal.waitForScreen("the item, waiting to be sent") {
            $0.contains("#1  Written offline") && $0.contains("offline, 1 to send")
        }

        // The server comes back on the same port, with its rows: the copy
        // sends the item, and another copy gets it.
        let port = try #require(server.url.split(separator: ":").last.map(String.init))
        server = try await ServerProcess.start(arguments: kept + ["--port", port])
        defer { server.stop() }
        try await run.terminal.waitFor("To-dos (1) · synced, live")
        let other = try Run.start(in: otherDirectory, arguments: ["--server", server.url])
        try await Self.logInAsAstro(other)
        try await other.terminal.press("3")
        try await other.terminal.waitFor("#1  Written offline")
        for copy in [run, other] {
            try await copy.terminal.press("q")
            try await copy.expectTerminalRestored()
            await copy.terminal.close()
        }
    }

    @Test func aTerminalTooSmallShowsAMessage() async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Run.start(in: directory, columns: 50, rows: 12)
        try await run.terminal.waitForScreen("the message") { screen in
            // Wrapped to the width: read it as one line.
            screen.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(
                "SpacePhotos needs at least 64×20."
            )
        }
        try await run.terminal.press("C-c")
        try await run.expectTerminalRestored()
        await run.terminal.close()
    }

    /// A crash (a Swift trap, an abort) restores the terminal through the
    /// signal handler, and the process still dies of its signal.
    @Test(arguments: ["trap", "abort"])
    func aCrashRestoresTheTerminal(_ how: String) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Run.start(in: directory, program: "TerminalCrashProbe", arguments: [how])
        try await run.terminal.waitFor("THE PROBE IS ABOUT TO CRASH (\(how))")
        #expect(try await run.terminal.format("#{alternate_on}") == "1")
        try await run.terminal.press("Enter")
        // 128 + the signal: SIGILL (4) or SIGTRAP (5) for a trap, SIGABRT (6).
        // Under ThreadSanitizer (CI's second run, the probe built alike),
        // TSan's own signal handling takes over once the handler has run:
        // it exits 66, or dies of SIGSEGV. The terminal is checked all the same.
        let statuses: Set<String>? = Self.isUnderThreadSanitizer ? nil : how == "abort" ? ["134"] : ["132", "133"]
        try await run.expectTerminalRestored(exitStatus: statuses)
        await run.terminal.close()
    }

    /// Whether this process was built with ThreadSanitizer (its runtime's
    /// entry point is there to find).
    static let isUnderThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil

    /// Prints the key-to-frame times the runs recorded (a measurement for
    /// the benchmark notes, not a check: timings are no test's business).
    static func reportLatencies(in directory: URL) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let micros = files.filter { $0.hasPrefix("latency-") }.flatMap { name in
            ((try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "")
                .split(separator: "\n").compactMap { Int($0) }
        }.sorted()
        guard !micros.isEmpty else { return }
        func percentile(_ p: Double) -> Int { micros[min(micros.count - 1, Int(Double(micros.count - 1) * p))] }
        print(
            "key-to-frame in the pseudo-terminal: \(micros.count) inputs, median \(percentile(0.5)) µs, p99 \(percentile(0.99)) µs, max \(micros.last ?? 0) µs"
        )
    }
}
