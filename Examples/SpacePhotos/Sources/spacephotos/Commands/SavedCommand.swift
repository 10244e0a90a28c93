import ArgumentParser
import BaselineHTTP
import BaselineImages
import BaselineStore
import Foundation
import SpacePhotosCore

struct SavedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "saved",
        abstract:
            "The saved photos (the app's Saved tab), kept with their images in a database under your data directory.",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct Options: ParsableArguments {
        @Option(
            help:
                "The database file. Default: $XDG_DATA_HOME/spacephotos/saved.sqlite, or ~/.local/share/spacephotos/saved.sqlite."
        )
        var database: String?

        func openRepository() async throws -> SavedPhotoRepository {
            if let database {
                // A file of the user's choosing, in a folder whose mode is theirs.
                return try await SavedPhotoRepository.open(at: URL(fileURLWithPath: database))
            }
            try AppDirectories.createPrivate(AppDirectories.data)
            return try await SavedPhotoRepository.open(at: AppDirectories.data.appendingPathComponent("saved.sqlite"))
        }
    }

    static func day(_ text: String) throws -> Date {
        guard let date = PhotoDay.date(from: text) else {
            throw ValidationError("\"\(text)\" is not a day written yyyy-MM-dd")
        }
        return date
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the saved photos, most recently saved first, with their images."
        )
        @OptionGroup var options: Options
        @OptionGroup var images: ImageOptions

        func run() async throws {
            let repository = try await options.openRepository()
            let saved = try await repository.all()
            if saved.isEmpty { print("No saved photos. Save one with `spacephotos saved add <yyyy-MM-dd>`.") }
            let decoders = ImagePipeline.Configuration().decoders
            for entry in saved {
                print(
                    "\n\(entry.photo.day)  \(entry.photo.title)  (\(entry.mediaType), \(entry.imageByteCount / 1024) KiB)"
                )
                guard !images.noImages, let data = try await repository.imageData(for: entry.id) else { continue }
                do {
                    await images.draw(try decoders.decode(data, limits: ImageDecodingLimits()))
                } catch {
                    print("   (the saved image cannot be shown: \(ErrorMessage.line(for: error)))")
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save the photo of a day, with its image.")
        @OptionGroup var options: Options
        @OptionGroup var server: ServerOptions
        @Argument(help: "The photo's day, yyyy-MM-dd.") var day: String

        func run() async throws {
            let date = try SavedCommand.day(day)
            let repository = try await options.openRepository()
            try await server.withServer { baseURL in
                try await Self.save(
                    date,
                    baseURL: baseURL,
                    repository: repository,
                    persistentCache: server.server != nil
                )
            }
        }

        @MainActor
        static func save(
            _ date: Date,
            baseURL: URL,
            repository: SavedPhotoRepository,
            persistentCache: Bool
        ) async throws {
            let client = HTTPClient(baseURL: baseURL)
            let photo = try await PhotoAPI(client: client).photo(on: date)
            let pipeline = ImageOptions.pipeline(client: client, persistentCache: persistentCache)
            let saved = Store(initialState: SavedPhotos.State()) {
                SavedPhotos(repository: repository, pipeline: pipeline)
            }
            print("Saving \(photo.day)  \(photo.title)…")
            await saved.send(.save(photo)).finish()
            if let error = saved.errorMessage {
                printError(error)
                throw ExitCode.failure
            }
            print("Saved.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a saved photo.")
        @OptionGroup var options: Options
        @Argument(help: "The photo's day, yyyy-MM-dd.") var day: String

        func run() async throws {
            let date = try SavedCommand.day(day)
            if try await options.openRepository().remove(date) {
                print("Removed \(day).")
            } else {
                printError("No saved photo of \(day).")
                throw ExitCode.failure
            }
        }
    }
}
