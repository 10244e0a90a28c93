import BaselineConcurrency
import BaselineHTTP
import BaselineStore
import Foundation
import SpacePhotosCore
import SpacePhotosServer
import SpacePhotosTerminal
import TerminalUI

/// The terminal app's frames: the real screens of the real models, at
/// 200×60, against the example server.
///
/// - A full frame with an image panel: render (the view functions) plus
///   encode from nothing. Target ≤ 1 ms.
/// - The same frame again, nothing changed: render plus diff (what every
///   redraw costs before it writes).
/// - One line changed (a character typed into the to-do field): the bytes
///   written, against the bytes of that line and of a full frame (the diff works).
/// - 10,000 to-dos, moving the selection: render plus diff per key.
///
/// For allocation counts (`../shared/tools/malloc-count`), one operation
/// alone: `TERMINAL_ONLY=full|unchanged|scroll TERMINAL_COUNT=N` runs it N
/// times after the set-up and nothing else; two runs with different N give
/// the allocations per frame (the set-up cancels out).
enum TerminalBenchmarks {
    @MainActor
    static func run() async throws {
        print("\n== Terminal frames (SpacePhotos screens, 200×60)")
        TextWidth.prepareLocale()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "terminal-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ExampleServer().start()
        defer { Task { await server.stop() } }

        var dependencies = try await AppDependencies.live(serverURL: server.baseURL, dataDirectory: directory)
        // The same days every run, so the same image is measured.
        let photos = PhotoAPI(client: HTTPClient(baseURL: server.baseURL))
        dependencies.photoSource = PhotoSource(
            randomDates: { count in try await photos.randomDays(count: count, seed: 7) },
            photo: { date in try await photos.photo(on: date) }
        )
        try await dependencies.todos.add(contentsOf: (1...10_000).map { "To-do \($0): 富士山に登る and look at the stars" })
        let program = SpacePhotosProgram(dependencies: dependencies)
        let app = program.store
        await app.send(.start).finish()
        guard let login = app.scope(state: \.login, action: \.login) else {
            throw BenchmarkError.setup("no login screen")
        }
        login.binding(\.id).value = DemoUser.demo.id
        login.binding(\.password).value = DemoUser.demo.password
        await login.send(.loginButtonTapped).finish()
        guard app.screen == .main else { throw BenchmarkError.setup("the login failed") }
        // The main screen's `.task`, which this loop-less harness runs itself.
        app.send(.todos(.todos(.start)))
        try await waitUntil(app) { $0.todos.todos.value.count == 10_000 }

        let context = RenderContext(size: TerminalSize(columns: 200, rows: 60))
        await app.send(.photos(.catalog(.updateItems))).finish()
        // The frame asks for the photo at its panel's size, then for its
        // cells: run those tasks, as the loop would.
        for prefix in ["photo-image", "image-cells"] {
            for task in program.render(context).tasks where task.id.hasPrefix(prefix) {
                await task.operation()
            }
        }
        let encoder = FrameEncoder(colors: .trueColor)
        let photosFrame = program.render(context).buffer
        let fullBytes = encoder.encode(photosFrame, over: nil).count
        let imageCells = photosFrame.cells.filter { $0.grapheme == "▀" }.count
        guard imageCells > 1_000 else {
            throw BenchmarkError.setup("the image panel is not drawn (\(imageCells) cells)")
        }

        let fullFrame = { _ = encoder.encode(program.render(context).buffer, over: nil) }
        let sameFrame = { _ = encoder.encode(program.render(context).buffer, over: photosFrame) }
        // Scrolling 10,000 to-dos, a key at a time (set up by `showTodos`).
        var previous = photosFrame
        var step = 1
        let showTodos = {
            app.binding(\.tab.value).value = .todos
            previous = program.render(context).buffer
        }
        let scrollStep = {
            if app.todos.selectedIndex == app.todos.todos.value.count - 1 { step = -1 }
            if app.todos.selectedIndex == 0 { step = 1 }
            app.send(.todos(.moveSelection(by: step)))
            let frame = program.render(context)
            _ = encoder.encode(frame.buffer, over: previous)
            previous = frame.buffer
        }

        let environment = ProcessInfo.processInfo.environment
        if let only = environment["TERMINAL_ONLY"] {
            let count = environment["TERMINAL_COUNT"].flatMap { Int($0) } ?? 1_000
            switch only {
            case "full": for _ in 0..<count { fullFrame() }
            case "unchanged": for _ in 0..<count { sameFrame() }
            case "scroll":
                showTodos()
                for _ in 0..<count { scrollStep() }
            default: throw BenchmarkError.setup("TERMINAL_ONLY is full, unchanged or scroll, not \(only)")
            }
            print("ran \(only) \(count) times")
            await program.finish()
            return
        }

        let full = try await Measurement.run(
            "render + encode a full frame with an image",
            iterations: 2_000,
            warmup: 50
        ) {
        } body: { _ in
            fullFrame()
        }
        print(full.report(target: "≤ 1 ms"))
        let renderOnly = try await Measurement.run(
            "   of which render (the view functions)",
            iterations: 2_000,
            warmup: 50
        ) {
        } body: { _ in
            _ = program.render(context)
        }
        print(renderOnly.report())
        let encodeOnly = try await Measurement.run("   of which encode from nothing", iterations: 2_000, warmup: 50) {
        } body: { _ in
            _ = encoder.encode(photosFrame, over: nil)
        }
        print(encodeOnly.report())
        print("   \(imageCells) image cells; a full frame is \(fullBytes / 1024) KiB of output (24-bit colour)")

        let unchanged = try await Measurement.run("render + diff, nothing changed", iterations: 2_000, warmup: 50) {
        } body: { _ in
            sameFrame()
        }
        print(unchanged.report())

        // One line changes: a character typed into the new to-do field.
        app.binding(\.tab.value).value = .todos
        _ = program.handle(.key(KeyPress(.character("a"))))  // focus the field
        previous = program.render(context).buffer
        var lineBytes: [Int] = []
        let letters = Array("abcdefghijklmnopqrstuvwxyz富士山")
        let todos = app.scope(state: \.todos, action: \.todos)
        // 150 characters: the field (190 columns) does not scroll yet.
        let typing = try await Measurement.run("render + diff, one character typed", iterations: 150, warmup: 0) {
        } body: { _ in
            let draft = app.todos.draft
            todos.binding(\.draft).value = draft + String(letters[draft.count % letters.count])
            let frame = program.render(context)
            lineBytes.append(encoder.encode(frame.buffer, over: previous).count)
            previous = frame.buffer
        }
        print(typing.report())
        let sortedBytes = lineBytes.sorted()
        let lineOfText = 200 * 3  // a 200-column line of two- and three-byte characters, at most, before styles
        print(
            "   bytes written per keystroke: median \(sortedBytes[sortedBytes.count / 2]), max \(sortedBytes.last ?? 0); a line of text ≈ \(lineOfText), a full frame \(fullBytes)"
        )

        _ = program.handle(.key(KeyPress(.escape)))
        showTodos()
        let scrolling = try await Measurement.run(
            "render + diff, 10,000 to-dos, one row down",
            iterations: 2_000,
            warmup: 20
        ) {
        } body: { _ in
            scrollStep()
        }
        print(scrolling.report())
        await program.finish()
    }
}
