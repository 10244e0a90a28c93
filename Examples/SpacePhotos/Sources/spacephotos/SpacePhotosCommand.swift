import ArgumentParser

@main
struct SpacePhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spacephotos",
        abstract: "The Baseline example app: the seed systems rebuilt on Baseline, with their own local server.",
        subcommands: [DemoCommand.self, CatalogCommand.self, SavedCommand.self, ServeCommand.self, TodoCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
