import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosTerminal

/// The space photo catalog, its images, a refresh that supersedes a slow
/// load, and saving photos.
struct CatalogDemo {
    let baseURL: URL
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        try AppDirectories.createPrivate(dataDirectory)
        let client = HTTPClient(baseURL: baseURL)
        // Counts the requests that reach the network, to show coalescing.
        let counter = RecordingMiddleware()
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = try DiskImageCache(
            directory: dataDirectory.appendingPathComponent("images"),
            limit: 64 * 1_048_576
        )
        let pipeline = ImagePipeline(
            client: HTTPClient(baseURL: baseURL, middleware: [counter]),
            configuration: configuration
        )

        narrator.section("The catalog: 8 random days, at most 4 requests at a time, in a task group")
        // The first load is slow on purpose (the server waits 3 s per photo), for the refresh below.
        let loads = LockedValue(0)
        let live = PhotoSource.live(client: client)
        let slow = PhotoSource.live(client: client, serverOptions: [URLQueryItem(name: "delay", value: "3000")])
        let source = PhotoSource(
            randomDates: { count in
                loads.withLock { $0 += 1 }
                return try await live.randomDates(count)
            },
            photo: { date in
                try await (loads.current == 1 ? slow : live).photo(date)
            }
        )
        let catalog = Store(initialState: PhotoCatalog.State()) {
            PhotoCatalog(source: source, count: 8, maximumConcurrentFetches: 4)
        }
        let started = ContinuousClock.now
        let firstLoad = catalog.send(.updateItems)
        try await waitUntil(catalog) { $0.progress != nil }  // the slow photos are being fetched
        narrator.step("Loading (slowly)… then pull to refresh: the new load supersedes it.")
        await catalog.send(.updateItems).finish()
        await firstLoad.finish()
        narrator.result(
            "\(catalog.items.count) photos after \(Narrator.format(ContinuousClock.now - started)) — the slow load was cancelled, never shown:"
        )
        for photo in catalog.items {
            narrator.step("\(photo.day)  \(photo.title)")
        }

        guard let photo = catalog.items.first else { return }
        narrator.section("Its image through BaselineImages: 20 views ask at once → one download, one decode")
        let images = try await withThrowingTaskGroup(of: DecodedImage.self) { group in
            for _ in 0..<20 { group.addTask { try await pipeline.image(for: photo.url) } }
            var images: [DecodedImage] = []
            for try await image in group { images.append(image) }
            return images
        }
        narrator.result(
            "\(images.count) images, \(counter.count) download; \(images[0].width)×\(images[0].height), \(images[0].byteCount / 1024) KiB decoded."
        )
        for line in await ImageOptions.render(images[0], columns: 64) {
            print("   " + line)
        }

        narrator.section("Saving photos (SavePhotoButton and the Saved tab)")
        let repository = try await SavedPhotoRepository.open(at: dataDirectory.appendingPathComponent("saved.sqlite"))
        let saved = Store(initialState: SavedPhotos.State()) { SavedPhotos(repository: repository, pipeline: pipeline) }
        saved.send(.photos(.start))  // the Saved tab's `.task`
        let saving = saved.send(.toggleSave(photo))
        narrator.step("Saving “\(photo.title)”… button disabled: \(saved.state.isSaving(photo))")
        await saving.finish()
        for other in catalog.items.dropFirst().prefix(2) {
            await saved.send(.save(other)).finish()
        }
        try await waitUntil(saved) { $0.photos.value.count == min(3, catalog.items.count) }
        narrator.result(
            "Saved: "
                + saved.photos.value.map { "\($0.photo.day) (\($0.imageByteCount / 1024) KiB)" }.joined(separator: ", ")
        )
        await saved.send(.toggleSave(photo)).finish()
        try await waitUntil(saved) { !$0.state.isSaved(photo) }
        narrator.result("After unsaving \(photo.day): " + saved.photos.value.map(\.photo.day).joined(separator: ", "))
        // The Saved tab goes, and its live query with it.
        saved.send(.photos(.stop))
        try await repository.database.waitUntilObservationsEnd()
    }

}
