import BaselineImages
import Foundation
import Observation

/// The Saved tab: the saved photos from the database, the selected one's
/// image (decoded from the bytes saved with it, so it shows without the
/// network), and removing it.
///
/// ```swift
/// List(browser.saved.photos, selection: …) { Text($0.photo.title) }
/// PhaseView(phase: browser.imagePhase)
///     .task(id: browser.selectedPhoto?.id) { await browser.loadSelectedImage() }
/// Button("Remove") { Task { await browser.removeSelected() } }
/// ```
@MainActor
@Observable
public final class SavedPhotoBrowser {
    /// The saved photos.
    public let saved: SavedPhotos
    /// The selected saved photo.
    public private(set) var selectedID: SpacePhoto.ID?
    /// The selected photo's image, as it was saved.
    public private(set) var imagePhase: ImagePhase = .empty
    /// The photo ``imagePhase`` belongs to.
    public private(set) var imageID: SpacePhoto.ID?

    @ObservationIgnored private let decoders: [any ImageDecoding]
    @ObservationIgnored private let limits: ImageDecodingLimits
    /// Counts loads, so a finished load can tell whether it was superseded.
    @ObservationIgnored private var generation: UInt64 = 0

    /// A browser over `saved`, with no image loaded; `decoders` and `limits`
    /// decode the saved bytes (by default, as the image pipeline would).
    public init(
        saved: SavedPhotos,
        decoders: [any ImageDecoding] = ImagePipeline.Configuration().decoders,
        limits: ImageDecodingLimits = ImageDecodingLimits()
    ) {
        self.saved = saved
        self.decoders = decoders
        self.limits = limits
    }

    /// The selected photo while it is saved; when the selection is gone
    /// (removed here or elsewhere), the first saved photo.
    public var selectedPhoto: SavedPhoto? {
        if let selectedID, let photo = saved.photos.first(where: { $0.id == selectedID }) { return photo }
        return saved.photos.first
    }

    /// The selected photo's position in the list.
    public var selectedIndex: Int? {
        guard let id = selectedPhoto?.id else { return nil }
        return saved.photos.firstIndex { $0.id == id }
    }

    /// Selects a saved photo.
    public func select(_ id: SpacePhoto.ID?) {
        selectedID = id
    }

    /// Moves the selection by `offset` rows, stopping at the ends (see
    /// ``ListSelection``).
    public func moveSelection(by offset: Int) {
        let photos = saved.photos
        guard let index = ListSelection.index(movingFrom: selectedIndex, by: offset, count: photos.count) else {
            return
        }
        select(photos[index].id)
    }

    /// Loads the image of ``selectedPhoto`` into ``imagePhase``, decoded
    /// off the main actor; returns when it is shown, or when a newer load or
    /// the caller's cancellation ended it (the phase is then left alone).
    public func loadSelectedImage() async {
        generation &+= 1
        let loadID = generation
        imageID = selectedPhoto?.id
        guard let photo = selectedPhoto else {
            imagePhase = .empty
            return
        }
        imagePhase = .empty
        let phase = await Self.decodeSavedImage(of: photo.id, from: saved, decoders: decoders, limits: limits)
        guard loadID == generation, !Task.isCancelled else { return }
        imagePhase = phase
    }

    /// Removes the selected photo from the saved photos; the next one is
    /// selected.
    public func removeSelected() async {
        guard let photo = selectedPhoto, let index = selectedIndex else { return }
        let photos = saved.photos
        let next = index + 1 < photos.count ? photos[index + 1].id : index > 0 ? photos[index - 1].id : nil
        if await saved.unsave(photo.photo), selectedID == nil || selectedID == photo.id {
            // Unless the user chose another one meanwhile.
            select(next)
        }
    }

    @concurrent
    private nonisolated static func decodeSavedImage(
        of id: SpacePhoto.ID,
        from saved: SavedPhotos,
        decoders: [any ImageDecoding],
        limits: ImageDecodingLimits
    ) async -> ImagePhase {
        do {
            guard let data = try await saved.imageData(for: id) else { return .empty }
            return .success(try decoders.decode(data, limits: limits))
        } catch let error as ImageError {
            return .failure(error)
        } catch {
            return .failure(.corruptImage(String(describing: error)))
        }
    }
}
