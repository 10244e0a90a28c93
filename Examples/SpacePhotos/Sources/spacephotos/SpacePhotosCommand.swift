import ArgumentParser
import Foundation

@main
struct SpacePhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spacephotos",
        abstract:
            "The Baseline example app: a login, an HTTP tour, to-dos, a fact counter and space photos, with their own local server.",
        discussion: """
            Without a subcommand, on a terminal: the app (`app`); without a terminal \
            (a pipe, CI): the narrated demo (`demo`).
            """,
        subcommands: [
            AppCommand.self, DemoCommand.self, CatalogCommand.self, SavedCommand.self, ServeCommand.self,
            TodoCommand.self,
        ]
    )

    @OptionGroup var options: AppOptions

    func run() async throws {
        if isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
            var app = AppCommand()
            app.options = options
            try await app.run()
        } else {
            let demo = try DemoCommand.parse([])
            try await demo.run()
        }
    }
}
