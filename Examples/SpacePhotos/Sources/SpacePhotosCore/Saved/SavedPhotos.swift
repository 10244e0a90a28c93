import BaselineConcurrency
import Foundation
import Observation

/// The Saved tab and the save buttons (seed 004's `SavePhotoButton`): the
/// saved list, and which photos are being saved right now.
///
/// ```swift
/// Button("Save") { Task { await saved.save(photo) } }
///     .disabled(saved.isSaving(photo))
///     .overlay { if saved.isSaving(photo) { ProgressView() } }
/// ```
///
/// ``photos`` follows the database, not the actions: a photo saved here, on
/// another screen or by another process shows up once the write commits.
@MainActor
@Observable
public final class SavedPhotos {
    /// Every saved photo, most recently saved first.
    public private(set) var photos: [SavedPhoto] = []
    /// Whether the first list has arrived from the database.
    public private(set) var isLoaded = false
    /// What to tell the user about the last failed save or unsave; `nil` otherwise.
    public private(set) var errorMessage: String?
    /// The photos whose save is running.
    public private(set) var savingIDs: Set<SpacePhoto.ID> = []
    /// The saves running, each by a number never reused: tells a save from a
    /// later save of the same photo (the quit question waits on these).
    public private(set) var runningSaves: Set<Int> = []
    @ObservationIgnored private var lastSave = 0

    @ObservationIgnored private let repository: SavedPhotoRepository
    @ObservationIgnored private let imageData: @Sendable (URL) async throws -> (data: Data, mediaType: String)
    @ObservationIgnored private var observer: StreamObserver?

    /// - Parameters:
    ///   - imageData: Fetches a photo's image: its bytes and media type
    ///     (an ``ImagePipeline``'s cached data, in the app).
    public init(
        repository: SavedPhotoRepository,
        imageData: @escaping @Sendable (URL) async throws -> (data: Data, mediaType: String)
    ) {
        self.repository = repository
        self.imageData = imageData
        let observer = StreamObserver(observing: { repository.observeAll() }) { [weak self] photos in
            await self?.show(photos)
        } onError: { [weak self] error in
            await self?.report(error)
        }
        self.observer = observer
        observer.start()
    }

    /// Whether `photo`'s save is running (the button is disabled meanwhile).
    public func isSaving(_ photo: SpacePhoto) -> Bool {
        savingIDs.contains(photo.id)
    }

    /// Whether `photo` is in the saved list.
    public func isSaved(_ photo: SpacePhoto) -> Bool {
        photos.contains { $0.id == photo.id }
    }

    /// Fetches `photo`'s image and stores both; `false`, with ``errorMessage``
    /// set, when that failed. A second call while the first runs does nothing
    /// and returns `false`. Runs on behalf of the caller's task: cancelled, it
    /// stores nothing.
    @discardableResult
    public func save(_ photo: SpacePhoto) async -> Bool {
        guard savingIDs.insert(photo.id).inserted else { return false }
        lastSave += 1
        let save = lastSave
        runningSaves.insert(save)
        defer {
            savingIDs.remove(photo.id)
            runningSaves.remove(save)
        }
        errorMessage = nil
        do {
            let image = try await imageData(photo.url)
            try Task.checkCancellation()
            try await repository.save(photo, image: image.data, mediaType: image.mediaType)
            return true
        } catch {
            report(error)
            return false
        }
    }

    /// Removes `photo` from the saved list; `false`, with ``errorMessage``
    /// set, when that failed.
    @discardableResult
    public func unsave(_ photo: SpacePhoto) async -> Bool {
        errorMessage = nil
        do {
            try await repository.remove(photo.id)
            return true
        } catch {
            report(error)
            return false
        }
    }

    /// The image saved with a photo, as stored; `nil` when it is not saved.
    public nonisolated func imageData(for id: SpacePhoto.ID) async throws -> Data? {
        try await repository.imageData(for: id)
    }

    private func show(_ photos: [SavedPhoto]) {
        self.photos = photos
        isLoaded = true
    }

    private func report(_ error: any Error) {
        switch error {
        case is CancellationError: break
        case let error as SavedPhotoError: errorMessage = error.description
        default: errorMessage = ErrorMessage.line("The photo could not be saved", error)
        }
    }
}
