import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("SavedPhotos", .timeLimit(.minutes(2)))
struct SavedPhotosTests {
    struct Image: Sendable {
        var data: Data
        var mediaType: String
    }

    let directory: TemporaryDirectory
    /// The image downloads, each suspended until the test answers it.
    let download = ControllableCall<URL, Image>()

    init() throws {
        directory = try TemporaryDirectory()
    }

    static let photo = SpacePhoto(
        title: "The Pillars",
        description: "Columns of gas and dust.",
        date: Date(timeIntervalSince1970: 1_710_460_800),
        url: URL(fileURLWithPath: "/images/pillars.png")
    )
    static let png = Image(data: Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]), mediaType: "image/png")

    func repository() async throws -> SavedPhotoRepository {
        try await SavedPhotoRepository.open(at: directory.url.appendingPathComponent("saved.sqlite"))
    }

    /// The saved photos on `repository`, checking only what a test states
    /// (the live query answers when it likes).
    func model(_ repository: SavedPhotoRepository) -> TestStore<SavedPhotos.State, SavedPhotos.Action> {
        let download = self.download
        let store = TestStore(initialState: SavedPhotos.State()) {
            SavedPhotos(repository: repository) { url in
                let image = try await download(url)
                return (image.data, image.mediaType)
            }
        }
        store.exhaustivity = .off
        return store
    }

    @Test func savingShowsProgressThenTheSavedList() async throws {
        let repository = try await repository()
        let saved = model(repository)
        await saved.send(.photos(.start))
        await saved.receive(.photos(.loaded([]))) { $0.photos.isLoading = false }
        #expect(saved.state.photos.isFollowing)
        #expect(saved.state.isSaving(Self.photo) == false)

        let saving = await saved.send(.save(Self.photo))
        let call = try await download.nextCall()
        #expect(call.arguments == Self.photo.url)
        #expect(saved.state.isSaving(Self.photo), "the button is disabled while the save runs")
        await saved.send(.save(Self.photo))
        #expect(saved.state.lastSave == 1, "a second tap does nothing")
        #expect(download.callCount == 1)

        call.resume(returning: Self.png)
        await saving.finish()
        let all = try await repository.all()
        // The save's end and the database's news of the new row come in
        // either order: receiving the first runs the other before it, if it
        // came first (the test store is not exhaustive here).
        await saved.receive(.saveFinished(1, errorMessage: nil))
        #expect(saved.state.isSaving(Self.photo) == false)
        if !saved.state.isSaved(Self.photo) {
            await saved.receive(.photos(.loaded(all)))
        }
        #expect(saved.state.isSaved(Self.photo))
        #expect(saved.state.photos.value.map(\.photo) == [Self.photo])
        #expect(saved.state.photos.value.first?.mediaType == "image/png")
        #expect(saved.state.photos.value.first?.imageByteCount == Self.png.data.count)
        #expect(try await repository.imageData(for: Self.photo.id) == Self.png.data)
        await saved.send(.photos(.stop))
        await saved.finish()
        try await repository.database.waitUntilObservationsEnd()
    }

    @Test func unsavingRemovesItFromTheList() async throws {
        let repository = try await repository()
        try await repository.save(Self.photo, image: Self.png.data, mediaType: Self.png.mediaType)
        let saved = model(repository)
        await saved.send(.photos(.start))
        await saved.receive(.photos(.loaded(try await repository.all())))
        #expect(saved.state.photos.value.count == 1)
        await saved.send(.unsave(Self.photo)).finish()
        await saved.receive(.photos(.loaded([])))
        #expect(saved.state.photos.value.isEmpty)
        #expect(saved.state.errorMessage == nil)
        #expect(try await repository.imageData(for: Self.photo.id) == nil)
        await saved.send(.photos(.stop))
        await saved.finish()
    }

    @Test func removingTheSelectedPhotoSelectsTheOneBelow() async throws {
        let repository = try await repository()
        let other = SpacePhoto(
            title: "Other",
            description: "",
            date: Date(timeIntervalSince1970: 0),
            url: URL(fileURLWithPath: "/images/other.jpg")
        )
        try await repository.save(other, image: Data([1]), mediaType: "image/jpeg")
        try await repository.save(Self.photo, image: Self.png.data, mediaType: Self.png.mediaType)
        let saved = model(repository)
        await saved.send(.photos(.start))
        await saved.receive(.photos(.loaded(try await repository.all())))
        #expect(saved.state.selectedPhoto?.photo == Self.photo, "the first, most recently saved")
        await saved.send(.removeSelectedTapped).finish()
        #expect(saved.state.selection.id == other.id)
        await saved.receive(.photos(.loaded(try await repository.all())))
        #expect(saved.state.selectedPhoto?.photo == other)
        await saved.send(.photos(.stop))
        await saved.finish()
    }

    @Test func aFailedDownloadSavesNothingAndSaysWhy() async throws {
        let repository = try await repository()
        let saved = model(repository)
        let saving = await saved.send(.save(Self.photo))
        try await download.nextCall().resume(throwing: URLError(.notConnectedToInternet))
        await saving.finish()
        saved.skipReceivedActions()
        #expect(saved.state.errorMessage != nil)
        #expect(saved.state.isSaving(Self.photo) == false)
        #expect(try await repository.all().isEmpty)
    }

    @Test func anEmptyImageIsRefused() async throws {
        let repository = try await repository()
        let saved = model(repository)
        let saving = await saved.send(.save(Self.photo))
        try await download.nextCall().resume(returning: Image(data: Data(), mediaType: "image/png"))
        await saving.finish()
        saved.skipReceivedActions()
        #expect(saved.state.errorMessage == SavedPhotoError.emptyImage.description)
        #expect(try await repository.all().isEmpty)
    }

    @Test func aCancelledSaveStoresNothingAndShowsNoError() async throws {
        let repository = try await repository()
        let saved = model(repository)
        let saving = await saved.send(.save(Self.photo))
        let call = try await download.nextCall()
        await saved.send(.cancelSaves)
        await saving.finish()
        saved.skipReceivedActions()
        #expect(call.isCancelled)
        #expect(saved.state.errorMessage == nil)
        #expect(saved.state.isSaving(Self.photo) == false)
        #expect(try await repository.all().isEmpty)
    }

    @Test func aClosedDatabaseStopsTheListWithAMessageAndKeepsTheLastOne() async throws {
        let repository = try await repository()
        try await repository.save(Self.photo, image: Self.png.data, mediaType: Self.png.mediaType)
        let all = try await repository.all()
        let saved = model(repository)
        saved.exhaustivity = .on
        await saved.send(.photos(.start)) {
            $0.photos.isFollowing = true
            $0.photos.isLoading = true
        }
        await saved.receive(.photos(.loaded(all))) {
            $0.photos.value = all
            $0.photos.isLoading = false
        }
        try await repository.database.close()
        let closed = FetchFailure(SQLiteDatabaseError.closed)
        await saved.receive(.photos(.failed(closed))) {
            $0.photos.isFollowing = false
            $0.photos.loadError = closed
            $0.errorMessage = "The saved photos could not be read: The database is closed."
        }
        await saved.finish()
        #expect(saved.state.isSaved(Self.photo), "the last list stays")
    }

    @Test func savingAgainReplacesTheImageAndMovesItToTheTop() async throws {
        let ticks = LockedValue(0.0)
        let repository = SavedPhotoRepository(database: try await repository().database) {
            Date(
                timeIntervalSince1970: ticks.withLock { value in
                    value += 1
                    return value
                }
            )
        }
        let other = SpacePhoto(
            title: "Other",
            description: "",
            date: Date(timeIntervalSince1970: 0),
            url: URL(fileURLWithPath: "/images/other.jpg")
        )
        try await repository.save(Self.photo, image: Self.png.data, mediaType: "image/png")
        try await repository.save(other, image: Data([1]), mediaType: "image/jpeg")
        #expect(try await repository.all().map(\.photo) == [other, Self.photo], "most recently saved first")
        try await repository.save(Self.photo, image: Data([9, 9]), mediaType: "image/png")
        let all = try await repository.all()
        #expect(all.map(\.photo) == [Self.photo, other])
        #expect(all.first?.imageByteCount == 2)
        #expect(try await repository.imageData(for: Self.photo.id) == Data([9, 9]))
    }

    @Test func savedPhotosSurviveReopeningTheDatabase() async throws {
        do {
            let repository = try await repository()
            try await repository.save(Self.photo, image: Self.png.data, mediaType: Self.png.mediaType)
            try await repository.database.close()
        }
        let reopened = try await repository()
        #expect(try await reopened.all().map(\.photo) == [Self.photo])
        #expect(try await reopened.imageData(for: Self.photo.id) == Self.png.data)
    }
}
