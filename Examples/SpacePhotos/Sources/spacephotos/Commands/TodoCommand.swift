import ArgumentParser
import BaselinePersistence
import Foundation
import SpacePhotosCore

struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "The to-do list, kept in a database under your data directory.",
        subcommands: [Add.self, List.self, Edit.self, Remove.self, Recover.self],
        defaultSubcommand: List.self
    )

    struct Options: ParsableArguments {
        @Option(
            help: """
                The database file. Default: the member's list as the app keeps it with --member, \
                else $XDG_DATA_HOME/spacephotos/todos.sqlite (or ~/.local/share/spacephotos/todos.sqlite), \
                a list of no member's that the first member to log in to the app takes over.
                """
        )
        var database: String?

        @Option(help: "The member whose list to use, as the app keeps it (todos-<member>.sqlite).")
        var member: String?

        var databaseURL: URL {
            if let database { return URL(fileURLWithPath: database) }
            if let member { return TodoDatabases.file(for: User.ID(rawValue: member), in: AppDirectories.data) }
            return AppDirectories.data.appendingPathComponent("todos.sqlite")
        }

        /// The repository on the database, or a clear message (and exit 1) when
        /// the database is damaged.
        func openRepository() async throws -> TodoRepository {
            let url = databaseURL
            do {
                return TodoRepository(database: try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator))
            } catch SQLiteDatabaseError.corrupt {
                printError(
                    """
                    The to-do database at \(url.path) is damaged.
                    Run `spacephotos todo recover` to move it aside (nothing is deleted) and start a new list.
                    """
                )
                throw ExitCode.failure
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a to-do.")
        @OptionGroup var options: Options
        @Argument(help: "The text.") var text: String

        func run() async throws {
            let repository = try await options.openRepository()
            let todo = try await reportingTodoErrors { try await repository.add(text) }
            print("Added #\(todo.id ?? 0): \(todo.text)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the to-dos, oldest first.")
        @OptionGroup var options: Options

        func run() async throws {
            let todos = try await options.openRepository().all()
            if todos.isEmpty { print("Nothing to do.") }
            for todo in todos {
                print(TodoCommand.line(for: todo))
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a to-do's text, keeping its place.")
        @OptionGroup var options: Options
        @Argument(help: "The to-do's number, as `list` shows it.") var id: Int64
        @Argument(help: "The new text.") var text: String

        func run() async throws {
            let repository = try await options.openRepository()
            let todo = try await reportingTodoErrors { try await repository.edit(id: id, text: text) }
            print("Edited #\(todo.id ?? 0): \(todo.text)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a to-do.")
        @OptionGroup var options: Options
        @Argument(help: "The to-do's number, as `list` shows it.") var id: Int64

        func run() async throws {
            let repository = try await options.openRepository()
            try await reportingTodoErrors { try await repository.delete(id: id) }
            print("Deleted #\(id).")
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a damaged database aside and start a new, empty one."
        )
        @OptionGroup var options: Options

        func run() async throws {
            let url = options.databaseURL
            let aside = try SQLiteDatabase.moveAside(databaseAt: url)
            _ = try await SQLiteDatabase.open(at: url, migrator: TodoSchema.migrator)
            print("Moved the old database to \(aside.path); started a new list at \(url.path).")
        }
    }

    static func line(for todo: Todo) -> String {
        let date = todo.date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        return "#\(todo.id ?? 0)  \(date)  \(todo.text)"
    }
}

/// Runs `body`, turning a refused change into a message and exit code 1.
private func reportingTodoErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as TodoError {
        printError(error.description)
        throw ExitCode.failure
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
