import ArgumentParser
import Foundation

@main
struct SpacePhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spacephotos",
        abstract: "The Baseline example app: the seed systems rebuilt on Baseline, with their own local server.",
        discussion: """
        Without a subcommand, on a terminal: the app (`app`); without a terminal \
        (a pipe, CI): the narrated demo (`demo`).
        """,
        subcommands: [
            AppCommand.self, DemoCommand.self, CatalogCommand.self, SavedCommand.self, ServeCommand.self, TodoCommand.self,
        ]
    )

    @OptionGroup var server: ServerOptions

    @Option(help: "The app's log file (see `app --help`).")
    var logFile: String?

    @Option(help: .hidden)
    var slowFact: Int?

    func run() async throws {
        if isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
            var app = AppCommand()
            app.server = server
            app.logFile = logFile
            app.slowFact = slowFact
            try await app.run()
        } else {
            let demo = try DemoCommand.parse([])
            try await demo.run()
        }
    }
}
