import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import SpacePhotosCore
import SpacePhotosTerminal
import TerminalUI
import Testing

/// The screens rendered to text for given states of the store, compared as
/// text: what a person sees, line by line (trailing spaces trimmed).
@MainActor
@Suite("Screens", .timeLimit(.minutes(2)))
struct ScreenTests {
    let fixture: AppFixture

    init() {
        TextWidth.prepareLocale()
        fixture = AppFixture(holdsFacts: true)
    }

    func makeProgram(
        loggedIn: Bool = true,
        prepare: (AppDependencies) async throws -> Void = { _ in }
    ) async throws -> SpacePhotosProgram {
        if loggedIn { fixture.sessions.withLock { $0 = [.success(fixture.member)] } }
        let dependencies = try await fixture.dependencies()
        try await prepare(dependencies)
        let program = SpacePhotosProgram(dependencies: dependencies)
        await program.store.send(.start).finish()
        return program
    }

    func screen(
        _ program: SpacePhotosProgram,
        columns: Int = 80,
        rows: Int = 24,
        tick: Int = 0,
        _ name: String = #function
    ) -> String {
        let text = program.render(RenderContext(size: TerminalSize(columns: columns, rows: rows), tick: tick)).buffer
            .text
        if let directory = ProcessInfo.processInfo.environment["SCREEN_DUMP"] {
            try? text.write(toFile: directory + "/" + name + ".txt", atomically: true, encoding: .utf8)
        }
        return text
    }

    func press(_ program: SpacePhotosProgram, _ keys: Key...) {
        for key in keys { _ = program.handle(.key(KeyPress(key))) }
    }

    func type(_ program: SpacePhotosProgram, _ text: String) {
        for character in text { _ = program.handle(.key(KeyPress(.character(character)))) }
    }

    /// Runs the frame's task `id` once, as the render loop would when the
    /// frame first lists it (frames here run no task themselves).
    func runTasks(of program: SpacePhotosProgram, named id: String) async {
        let tasks = program.render(RenderContext(size: TerminalSize(columns: 80, rows: 24))).tasks
        #expect(tasks.contains { $0.id == id }, "the frame asks for it")
        for task in tasks where task.id == id { await task.operation() }
    }

    @Test func loginInFlight() async throws {
        let program = try await makeProgram(loggedIn: false)
        type(program, "astro")
        press(program, .tab)
        type(program, "stardust-42")
        press(program, .enter)
        let call = try await fixture.auth.logIn.nextCall()
        #expect(call.arguments == Credentials(id: User.ID(rawValue: "astro"), password: "stardust-42"))
        #expect(screen(program) == Self.loginInFlight)
        call.resume()
        await program.finish()
    }

    @Test func loginLockedOut() async throws {
        let program = try await makeProgram(loggedIn: false)
        type(program, "astro")
        press(program, .tab)
        type(program, "wrong")
        press(program, .enter)
        try await fixture.auth.logIn.nextCall().resume(throwing: LoginError.rateLimited(retryAfterSeconds: 30))
        await program.actions.waitForAll()  // not `finish()`, which cancels the work
        #expect(screen(program) == Self.loginLockedOut)
    }

    @Test func anEmptyToDoList() async throws {
        let program = try await makeProgram()
        press(program, .character("3"))
        // The main screen starts the list's live query, as a view's `.task`;
        // frames here run no task, so the test runs the frame's.
        await runTasks(of: program, named: "todos")
        try await waitUntil(program.store) { !$0.todos.todos.isLoading }
        #expect(program.store.todos.todos.isFollowing)
        #expect(screen(program) == Self.emptyToDos)
    }

    @Test func tenThousandToDosScrolledToTheEnd() async throws {
        let program = try await makeProgram { dependencies in
            try await dependencies.todos.add(contentsOf: (1...10_000).map { "To-do number \($0)" })
        }
        await runTasks(of: program, named: "todos")  // the main screen's `.task`
        try await waitUntil(program.store) { $0.todos.todos.value.count == 10_000 }
        press(program, .character("3"))
        _ = screen(program)  // the list's height is known once drawn
        press(program, .end)
        #expect(program.store.todos.selectedTodo?.text == "To-do number 10000")
        #expect(screen(program) == Self.tenThousandToDosAtTheEnd)
        press(program, .pageUp)
        #expect(program.store.todos.selectedTodo?.text == "To-do number 9987")
    }

    @Test func searchingTenThousandToDos() async throws {
        let program = try await makeProgram { dependencies in
            try await dependencies.todos.add(contentsOf: (1...10_000).map { "To-do number \($0)" })
        }
        await runTasks(of: program, named: "todos")
        try await waitUntil(program.store) { $0.todos.todos.value.count == 10_000 }
        press(program, .character("3"), .character("/"))
        type(program, "NUMBER 999")  // the case of ASCII letters is ignored
        #expect(program.store.todos.search == "NUMBER 999")
        try await waitUntil(program.store) { !$0.todos.todos.isLoading }
        press(program, .down, .down)  // the arrows select while typing
        #expect(program.store.todos.selectedTodo?.text == "To-do number 9990")
        #expect(screen(program) == Self.searchingToDos)
        press(program, .enter)  // back to the list, still narrowed
        let narrowed = screen(program, "narrowed")
        #expect(narrowed.contains("│ Find: NUMBER 999 ") && narrowed.contains(" / change · Esc clear │"))
        #expect(narrowed.contains("╭ To-dos (11 matching) ─"))
        press(program, .escape)  // in the list, Esc lists every item again
        #expect(program.store.todos.search.isEmpty)
        try await waitUntil(program.store) { !$0.todos.todos.isLoading }
        #expect(program.store.todos.todos.value.count == 10_000)
        #expect(program.store.todos.selectedTodo?.text == "To-do number 9990", "the selection stays")
    }

    @Test func theCounterRefreshing() async throws {
        let program = try await makeProgram()
        press(program, .character("4"), .character("+"), .character("+"), .character("r"))
        let call = try await fixture.factCalls.nextCall()
        #expect(call.arguments == 2)
        #expect(screen(program, tick: 3) == Self.counterRefreshing)
        press(program, .escape)
        await program.finish()
        #expect(call.isCancelled)
        #expect(!program.store.counter.isLoading)
    }

    @Test func aPhotoSaving() async throws {
        let downloads = fixture.holdDownloads(of: "/images/photo-1.png")
        let program = try await makeProgram()
        await program.store.send(.photos(.catalog(.updateItems))).finish()
        press(program, .character("s"))
        try await waitUntil(program.store) { store in store.photos.selectedPhoto.map(store.saved.isSaving) ?? false }
        #expect(screen(program) == Self.photoSaving)
        press(program, .character("q"))
        #expect(screen(program, "quit dialog").contains("A photo is being saved. Quit and lose it?"))
        #expect(program.handle(.key(KeyPress(.character("n")))) == .continue)
        let answering = downloads.answerEach(with: .failure(URLError(.networkConnectionLost)))
        defer { answering.cancel() }
        await program.finish()
        #expect(program.handle(.key(KeyPress(.character("q")))) == .quit)
    }

    @Test func aTerminalTooSmall() async throws {
        let program = try await makeProgram()
        #expect(screen(program, columns: 40, rows: 10) == Self.tooSmall)
    }

    @Test func aHugePasteIsCutToTheFieldWithANotice() async throws {
        let program = try await makeProgram()
        press(program, .character("3"), .character("a"))
        _ = program.handle(.paste(String(repeating: "あ", count: 1_000_000)))
        #expect(program.store.todos.draft.count == Todo.maximumTextLength)
        #expect(screen(program).contains("The field holds 500 characters: 999500 were left out."))
    }

    @Test func aToDoAddedAsTheAppQuitsIsKept() async throws {
        var todos: TodoRepository?
        let program = try await makeProgram { todos = $0.todos }
        let database = try await #require(todos).database()
        press(program, .character("3"), .character("a"))
        type(program, "milk")
        // The add waits behind a held write, still running when the app quits.
        let writer = await HeldWriter(database)
        press(program, .enter)
        program.terminate(reason: "quit")
        try await writer.release()
        await program.finish()
        #expect(try await todos?.all().map(\.text) == ["milk"])
    }

    @Test func aFailedAddKeepsTheTextInTheField() async throws {
        let program = try await makeProgram()
        press(program, .character("3"), .character("a"))
        type(program, "   ")
        press(program, .enter)
        await program.actions.waitForAll()
        #expect(program.store.todos.draft == "   ")
        #expect(screen(program).contains("A to-do needs some text."))
    }
}
