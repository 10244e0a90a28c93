import ArgumentParser
import BaselineHTTP
import BaselineImages
import BaselineStore
import Foundation
import SpacePhotosCore

struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Space photos: a random list, each drawn in the terminal."
    )

    @OptionGroup var server: ServerOptions
    @OptionGroup var images: ImageOptions

    @Option(help: "How many photos to list.")
    var count: Int = 6

    func validate() throws {
        guard (1...500).contains(count) else { throw ValidationError("--count must be between 1 and 500") }
    }

    func run() async throws {
        try await server.withServer { baseURL in
            try await Self.show(baseURL: baseURL, count: count, images: images, persistentCache: server.server != nil)
        }
    }

    @MainActor
    static func show(baseURL: URL, count: Int, images: ImageOptions, persistentCache: Bool) async throws {
        let client = HTTPClient(baseURL: baseURL)
        let pipeline = ImageOptions.pipeline(client: client, persistentCache: persistentCache)
        let catalog = Store(initialState: PhotoCatalog.State()) {
            PhotoCatalog(source: .live(client: client), count: count)
        }
        await catalog.send(.updateItems).finish()
        if let error = catalog.errorMessage {
            printError(error)
            throw ExitCode.failure
        }
        // Downloads and decodes overlap with drawing the photos before them.
        if !images.noImages { pipeline.prefetch(catalog.items.map(\.url)) }
        for photo in catalog.items {
            print("\n\(photo.day)  \(photo.title)")
            guard !images.noImages else { continue }
            do {
                await images.draw(try await pipeline.image(for: photo.url))
            } catch {
                print("   (no image: \(ErrorMessage.line(for: error)))")
            }
        }
        if catalog.failedCount > 0 {
            print("\n\(catalog.failedCount) of \(count) photos could not be loaded and were left out.")
        }
    }
}
