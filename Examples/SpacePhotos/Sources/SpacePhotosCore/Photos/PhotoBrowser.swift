import BaselineImages
import Foundation
import Observation

/// The Photos tab (seed 004's catalog screen): the catalog, the selected
/// photo with its image, and the Save / Unsave button.
///
/// ```swift
/// List(browser.catalog.items, selection: $selection) { Text($0.title) }
///     .onChange(of: selection) { browser.select($1) }
///     .task { await browser.refresh() }
///     .refreshable { await browser.refresh() }
/// PhaseView(phase: browser.image.phase)
///     .task(id: browser.selectedPhoto?.url) { await browser.loadSelectedImage() }
/// Button(browser.isSelectedSaved ? "Unsave" : "Save") { Task { await browser.toggleSaveSelected() } }
///     .disabled(!browser.canToggleSave)
/// ```
///
/// The selected photo's image loads through the ``ImagePipeline`` while a
/// view asks for it (``loadSelectedImage()``; a newer load supersedes it).
/// A refresh keeps the selection when the new list still has that photo,
/// else selects the first.
@MainActor
@Observable
public final class PhotoBrowser {
    /// The list of photos.
    public let catalog: PhotoCatalog
    /// The saved photos, for the Save button and the Saved tab.
    public let saved: SavedPhotos
    /// The selected photo's image.
    public let image: ImageLoader
    /// The selected photo.
    public private(set) var selectedID: SpacePhoto.ID?

    @ObservationIgnored private let pipeline: ImagePipeline

    /// A browser over `catalog`, with nothing selected until the first ``refresh()``;
    /// `pipeline` loads the selected image and prefetches the list's.
    public init(catalog: PhotoCatalog, saved: SavedPhotos, pipeline: ImagePipeline) {
        self.catalog = catalog
        self.saved = saved
        self.pipeline = pipeline
        self.image = ImageLoader(pipeline: pipeline)
    }

    /// The selected photo, if it is in the list.
    public var selectedPhoto: SpacePhoto? {
        guard let selectedID else { return nil }
        return catalog.items.first { $0.id == selectedID }
    }

    /// The selected photo's position in the list.
    public var selectedIndex: Int? {
        guard let selectedID else { return nil }
        return catalog.items.firstIndex { $0.id == selectedID }
    }

    /// Whether the selected photo is saved.
    public var isSelectedSaved: Bool {
        selectedPhoto.map(saved.isSaved) ?? false
    }

    /// Whether the selected photo's save is running.
    public var isSelectedSaving: Bool {
        selectedPhoto.map(saved.isSaving) ?? false
    }

    /// Whether the Save / Unsave button works now: a photo is selected and
    /// no save of it is running.
    public var canToggleSave: Bool {
        selectedPhoto != nil && !isSelectedSaving
    }

    /// Selects a photo.
    public func select(_ id: SpacePhoto.ID?) {
        selectedID = id
    }

    /// Loads the selected photo's image into ``image``, to fit
    /// `maximumPixelSize` on its longer side if given (the size the view
    /// shows it at); returns when it is shown, failed, or superseded. Runs on
    /// behalf of the caller's task.
    public func loadSelectedImage(maximumPixelSize: Int? = nil) async {
        await image.load(selectedPhoto.map { ImageRequest($0.url, size: maximumPixelSize) })
    }

    /// Moves the selection by `offset` rows, stopping at the ends (see
    /// ``ListSelection``).
    public func moveSelection(by offset: Int) {
        let items = catalog.items
        guard let index = ListSelection.index(movingFrom: selectedIndex, by: offset, count: items.count) else { return }
        select(items[index].id)
    }

    /// Loads a new list (superseding a load in flight), then keeps the
    /// selection if the photo is still listed, or selects the first; the
    /// list's images are prefetched. Returns when the list is shown.
    public func refresh() async {
        await catalog.updateItems()
        let items = catalog.items
        if selectedPhoto == nil {
            select(items.first?.id)
        }
        pipeline.prefetch(items.map(\.url))
    }

    /// Saves the selected photo, or removes it from the saved photos if it
    /// is saved. Does nothing while its save runs.
    public func toggleSaveSelected() async {
        guard canToggleSave, let photo = selectedPhoto else { return }
        if saved.isSaved(photo) {
            await saved.unsave(photo)
        } else {
            await saved.save(photo)
        }
    }
}
