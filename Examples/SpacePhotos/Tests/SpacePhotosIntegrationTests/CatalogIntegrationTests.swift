import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

/// The catalog, its images and saving, end to end: the real server, the
/// real pipeline with its libpng/libjpeg (or ImageIO) decoders, a real SQLite file.
@MainActor
// Three minutes: the server draws pictures, seconds each in a debug build
// and ten times that under ThreadSanitizer (CI's second run).
@Suite("Space photo catalog (real server)", .timeLimit(.minutes(3)))
struct CatalogIntegrationTests {
    @Test func aCatalogOfFiftyPhotosLoadsInTheServersOrder() async throws {
        try await withServer { server in
            let api = PhotoAPI(client: server.client)
            let days = try await api.randomDates(count: 50, seed: 7)
            #expect(days.count == 50)
            #expect(Set(days).count == 50)
            let catalog = Store(initialState: PhotoCatalog.State()) {
                PhotoCatalog(
                    source: PhotoSource(
                        randomDates: { _ in PhotoSource.Days(days) },
                        photo: { try await api.photo(on: $0) }
                    ),
                    count: 50,
                    maximumConcurrentFetches: 8
                )
            }
            await catalog.send(.updateItems).finish()
            #expect(catalog.items.map(\.date) == days)
            #expect(catalog.failedCount == 0)
            #expect(
                catalog.items.allSatisfy { $0.url.host == server.baseURL.host && $0.url.path.hasPrefix("/images/") }
            )
        }
    }

    @Test func failingDaysAreLeftOutAndCounted() async throws {
        let failing = ["2001-01-01", "2002-02-02"]
        try await withServer({ $0.failingPhotoDates = Set(failing) }) { server in
            let api = PhotoAPI(client: server.client)
            let days = (["2000-05-05"] + failing + ["2003-03-03"]).compactMap(PhotoDay.date(from:))
            let catalog = Store(initialState: PhotoCatalog.State()) {
                PhotoCatalog(
                    source: PhotoSource(
                        randomDates: { _ in PhotoSource.Days(days) },
                        photo: { try await api.photo(on: $0) }
                    ),
                    count: 4
                )
            }
            await catalog.send(.updateItems).finish()
            #expect(catalog.items.map(\.day) == ["2000-05-05", "2003-03-03"])
            #expect(catalog.failedCount == 2)
        }
    }

    @Test func thePipelineDecodesTheServersPNGsAndJPEGs() async throws {
        struct Entry: Decodable {
            var name: String
            var width: Int
            var height: Int
            var mediaType: String
        }
        try await withServer { server in
            let entries = try await server.client.send(Request<[Entry]>.get("/images")).value
            let pipeline = ImagePipeline(client: server.client)
            for mediaType in ["image/png", "image/jpeg"] {
                // The smallest of each kind: tests run in debug builds.
                let entry = try #require(
                    entries.filter { $0.mediaType == mediaType }.min { $0.width * $0.height < $1.width * $1.height }
                )
                let image = try await pipeline.image(for: server.baseURL.appendingPathComponent("images/\(entry.name)"))
                #expect(image.width == entry.width)
                #expect(image.height == entry.height)
                // A picture, not a blank or a single colour.
                let colours = Set(stride(from: 0, to: image.pixels.count, by: 4 * 7).map { image.pixels[$0] })
                #expect(colours.count > 16, "\(entry.name)")
            }
        }
    }

    @Test func corruptAndOversizedImagesGiveTypedErrors() async throws {
        try await withServer { server in
            let pipeline = ImagePipeline(client: server.client)
            func error(_ name: String) async -> ImageError? {
                do {
                    _ = try await pipeline.image(for: server.baseURL.appendingPathComponent("images/\(name)"))
                    return nil
                } catch {
                    return error as? ImageError
                }
            }
            guard case .corruptImage = await error("corrupt.png") else {
                Issue.record("corrupt.png")
                return
            }
            guard case .unsupportedImage = await error("garbage.jpg") else {
                Issue.record("garbage.jpg")
                return
            }
            guard case .tooLarge = await error("huge.png") else {
                Issue.record("huge.png")
                return
            }
            #expect(await error("no-such-image.png") == .badStatus(404))
        }
    }

    @Test func savingAPhotoStoresItsImageInTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        try await withServer { server in
            let photo = try await PhotoAPI(client: server.client).photo(
                on: try #require(PhotoDay.date(from: "2020-07-04"))
            )
            let repository = try await SavedPhotoRepository.open(
                at: directory.url.appendingPathComponent("saved.sqlite")
            )
            let pipeline = ImagePipeline(client: server.client)
            let saved = Store(initialState: SavedPhotos.State()) {
                SavedPhotos(repository: repository, pipeline: pipeline)
            }
            saved.send(.photos(.start))
            await saved.send(.save(photo)).finish()
            #expect(saved.errorMessage == nil)
            try await waitUntil(saved) { $0.state.isSaved(photo) }
            let entry = try #require(saved.photos.value.first)
            #expect(["image/png", "image/jpeg"].contains(entry.mediaType))
            let stored = try #require(try await repository.imageData(for: photo.id))
            let served = try await server.client.send(Request<Data>.get(photo.url.path)).value
            #expect(stored == served)

            await saved.send(.unsave(photo)).finish()
            #expect(saved.errorMessage == nil)
            try await waitUntil(saved) { $0.photos.value.isEmpty }

            // The saved image, decoded from the database through the saved photos' pipeline.
            await saved.send(.save(photo)).finish()
            try await waitUntil(saved) { $0.state.isSaved(photo) }
            let again = try #require(saved.photos.value.first)
            let image = try await repository.imagePipeline().image(for: ImageRequest(again.imageURL, size: 64))
            #expect(max(image.width, image.height) <= 64)
        }
    }
}
