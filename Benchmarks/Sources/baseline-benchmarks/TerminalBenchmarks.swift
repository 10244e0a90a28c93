import BaselineConcurrency
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
enum TerminalBenchmarks {
    @MainActor
    static func run() async throws {
        print("\n== Terminal frames (SpacePhotos screens, 200×60)")
        TextWidth.prepareLocale()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ExampleServer().start()
        defer { Task { await server.stop() } }

        let dependencies = try await AppDependencies.live(serverURL: server.baseURL, dataDirectory: directory)
        try await dependencies.todos.add(contentsOf: (1...10_000).map { "To-do \($0): 富士山に登る and look at the stars" })
        let app = AppModel(dependencies: dependencies)
        let program = SpacePhotosProgram(app: app)
        await app.start()
        guard let login = app.login else { throw BenchmarkError.setup("no login screen") }
        login.id = DemoUser.demo.id
        login.password = DemoUser.demo.password
        await login.loginButtonPressed()
        await waitUntil(app) { $0.screen == .main }

        let context = RenderContext(size: TerminalSize(columns: 200, rows: 60))
        await app.photos.refresh()
        await app.photos.loadSelectedImage()
        // The frame asks for the image at its panel's size: make it, as the loop would.
        for task in program.render(context).tasks where task.id.hasPrefix("image-cells") {
            await task.operation()
        }
        let encoder = FrameEncoder(colors: .trueColor)
        let photosFrame = program.render(context).buffer
        let fullBytes = encoder.encode(photosFrame, over: nil).count
        let imageCells = photosFrame.cells.filter { $0.grapheme == "▀" }.count
        guard imageCells > 1_000 else { throw BenchmarkError.setup("the image panel is not drawn (\(imageCells) cells)") }

        let full = try await Measurement.run("render + encode a full frame with an image", iterations: 2_000, warmup: 50) {} body: { _ in
            let frame = program.render(context)
            _ = encoder.encode(frame.buffer, over: nil)
        }
        print(full.report(target: "≤ 1 ms"))
        print("   \(imageCells) image cells; a full frame is \(fullBytes / 1024) KiB of output (24-bit colour)")

        let unchanged = try await Measurement.run("render + diff, nothing changed", iterations: 2_000, warmup: 50) {} body: { _ in
            let frame = program.render(context)
            _ = encoder.encode(frame.buffer, over: photosFrame)
        }
        print(unchanged.report())

        // One line changes: a character typed into the new to-do field.
        app.tab = .todos
        app.todos.draft = "Look"
        _ = program.handle(.key(KeyPress(.character("a"))))  // focus the field
        var previous = program.render(context).buffer
        var lineBytes: [Int] = []
        let typing = try await Measurement.run("render + diff, one character typed", iterations: 500, warmup: 5) {} body: { _ in
            app.todos.draft += "x"
            let frame = program.render(context)
            lineBytes.append(encoder.encode(frame.buffer, over: previous).count)
            previous = frame.buffer
        }
        print(typing.report())
        let sortedBytes = lineBytes.sorted()
        let lineOfText = 200 * 3  // a 200-column line of two- and three-byte characters, at most, before styles
        print("   bytes written per keystroke: median \(sortedBytes[sortedBytes.count / 2]), max \(sortedBytes.last ?? 0); a line of text ≈ \(lineOfText), a full frame \(fullBytes)")

        // Scrolling 10,000 to-dos, a key at a time.
        _ = program.handle(.key(KeyPress(.escape)))
        previous = program.render(context).buffer
        var step = 1
        let scrolling = try await Measurement.run("render + diff, 10,000 to-dos, one row down", iterations: 2_000, warmup: 20) {} body: { _ in
            if app.todos.selectedIndex == app.todos.todos.count - 1 { step = -1 }
            if app.todos.selectedIndex == 0 { step = 1 }
            app.todos.moveSelection(by: step)
            let frame = program.render(context)
            _ = encoder.encode(frame.buffer, over: previous)
            previous = frame.buffer
        }
        print(scrolling.report())
        await program.finish()
    }
}
