import BaselineImages
import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The Photos tab: the catalog with its load progress, the selected photo
/// drawn at the panel's size, its text, and the Save / Unsave button.
@MainActor
struct PhotosScreen: Screen {
    let photos: Store<PhotoBrowser.State, PhotoBrowser.Action>
    /// The saves, for the Save button and the list's marks.
    let saved: Store<SavedPhotos.State, SavedPhotos.Action>
    let favourites: Store<Favourites.State, Favourites.Action>
    let ui: InterfaceState
    let images: ImageCellCache
    /// The selected photo's image (this view's loader).
    let image: ImageLoader
    /// Prefetches the list's images at the size the panel shows them.
    let pipeline: ImagePipeline
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let listWidth = max(30, min(48, rect.width * 2 / 5))
        let (listRect, detailRect) = rect.splitColumns(at: listWidth)
        // Half blocks: a cell is one pixel wide and two high. Loading at the
        // panel's size decodes a fraction of a large photo (JPEGs at 1/2 to
        // 1/8 scale); a resized panel loads again at its new size.
        let pixelSize = Self.pixelSize(of: Self.layout(detailRect).image)
        let items = photos.catalog.items
        if !items.isEmpty {
            let requests = items.map { ImageRequest($0.url, size: pixelSize) }
            frame.task(id: "prefetch \(pixelSize) \(items.map(\.day).joined(separator: ","))") { [pipeline] in
                pipeline.prefetch(requests)
            }
        }
        drawList(into: &frame, in: listRect, tick: tick)
        drawDetail(into: &frame, in: detailRect, pixelSize: pixelSize, tick: tick)
    }

    /// The detail panel's image and text.
    private static func layout(_ rect: Rect) -> (image: Rect, text: Rect) {
        let inner = rect.inset(top: 1, left: 2, bottom: 1, right: 2)
        let textHeight = min(7, max(4, inner.height / 3))
        let (imageRect, textRect) = inner.splitRows(at: inner.height - textHeight)
        return (imageRect, textRect)
    }

    private static func pixelSize(of imageRect: Rect) -> Int {
        max(imageRect.width, imageRect.height * 2)
    }

    private func drawList(into frame: inout Frame, in rect: Rect, tick: Int) {
        let catalog = photos.catalog
        frame.buffer.drawBox(rect, title: "Photos")
        let inner = rect.inset(by: 1)
        guard inner.height > 2 else { return }
        let status = Rect(x: inner.x + 1, y: inner.y, width: inner.width - 2, height: 1)
        if catalog.isLoading {
            let spinner = frame.spinner(at: tick)
            let progress =
                catalog.progress.map { progress in
                    "Loading \(progress.completed) of \(progress.total)…"
                        + (progress.failed > 0 ? " \(progress.failed) failed" : "")
                } ?? "Loading…"
            frame.buffer.write(
                "\(spinner) \(progress)",
                at: status.x,
                status.y,
                style: Theme.accent,
                maxWidth: status.width
            )
        } else if let error = catalog.errorMessage {
            frame.buffer.writeWrapped(
                error + " Press r to retry.",
                in: Rect(x: status.x, y: status.y, width: status.width, height: 3),
                style: Theme.error
            )
            return
        } else if catalog.isOffline {
            // The list kept from the last launch: the server could not be reached.
            frame.buffer.write(
                "\(catalog.items.count) photos · offline, as last seen (r retries)",
                at: status.x,
                status.y,
                style: Theme.notice,
                maxWidth: status.width
            )
        } else if catalog.failedCount > 0 {
            frame.buffer.write(
                "\(catalog.items.count) photos · \(catalog.failedCount) could not be loaded (r retries)",
                at: status.x,
                status.y,
                style: catalog.items.isEmpty ? Theme.error : Theme.notice,
                maxWidth: status.width
            )
        } else {
            frame.buffer.write(
                "\(catalog.items.count) photos",
                at: status.x,
                status.y,
                style: Theme.secondary,
                maxWidth: status.width
            )
        }
        let rows = Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 2)
        let items = catalog.items
        let selected = photos.selectedIndex
        for (line, index) in ui.visibleRows(of: .photos, count: items.count, selected: selected, height: rows.height)
            .enumerated()
        {
            let photo = items[index]
            let marker: String
            if saved.state.isSaving(photo) {
                marker = String(frame.spinner(at: tick))
            } else {
                marker = saved.state.isSaved(photo) ? "★" : " "
            }
            frame.buffer.drawRow(
                " \(marker) \(photo.day)  \(photo.title)",
                in: rows.row(line),
                selected: index == selected
            )
        }
    }

    private func drawDetail(into frame: inout Frame, in rect: Rect, pixelSize: Int, tick: Int) {
        guard let photo = photos.selectedPhoto else {
            frame.buffer.drawBox(rect, title: "Photo")
            if !photos.catalog.isLoading, photos.catalog.errorMessage == nil {
                frame.buffer.writeCentered(
                    "Select a photo with ↑ and ↓.",
                    in: rect,
                    row: rect.y + rect.height / 2,
                    style: Theme.secondary
                )
            }
            return
        }
        frame.buffer.drawBox(rect, title: photo.title)
        let (imageRect, textRect) = Self.layout(rect)
        let request = ImageRequest(photo.url, size: pixelSize)
        frame.task(id: "photo-image \(photo.url) \(pixelSize)") { [image] in await image.load(request) }
        // The phase of the previous photo until this one's load starts: not shown.
        let phase = image.url == photo.url ? image.phase : .empty
        switch phase {
        case let .success(image):
            images.draw(image, named: photo.url.absoluteString, in: imageRect, on: &frame)
        case let .failure(error):
            frame.buffer.writeWrapped(
                "No image: \(ErrorMessage.line(for: error))",
                in: imageRect.centered(width: imageRect.width, height: 2),
                style: Theme.error
            )
        case .empty:
            let spinner = frame.spinner(at: tick)
            frame.buffer.writeCentered(
                "\(spinner) Loading the image…",
                in: imageRect,
                row: imageRect.y + imageRect.height / 2,
                style: Theme.secondary
            )
        }

        let day = frame.buffer.write(photo.day, at: textRect.x, textRect.y + 1, style: Theme.secondary)
        frame.buffer.write(
            "  " + favourites.state.label(for: photo.day),
            at: textRect.x + day,
            textRect.y + 1,
            style: favourites.state.mine.contains(photo.day) ? Theme.accent : Theme.secondary
        )
        let buttonRow = textRect.maxY - 1
        let description = Rect(
            x: textRect.x,
            y: textRect.y + 2,
            width: textRect.width,
            height: max(0, buttonRow - textRect.y - 3)
        )
        frame.buffer.writeWrapped(photo.description, in: description)
        if saved.state.isSaving(photo) {
            let spinner = frame.spinner(at: tick)
            frame.buffer.drawButton("Saving… \(spinner)", at: textRect.x, buttonRow, enabled: false)
        } else {
            frame.buffer.drawButton(
                saved.state.isSaved(photo) ? "Unsave" : "Save",
                at: textRect.x,
                buttonRow,
                enabled: true
            )
        }
    }

    /// Whether the selected photo is saved.
    private var isSelectedSaved: Bool {
        photos.selectedPhoto.map(saved.state.isSaved) ?? false
    }

    var hints: [KeyHint] {
        [.listSelection, KeyHint("s", isSelectedSaved ? "unsave" : "save")]
            + (photos.selectedPhoto.map { [favourites.state.hint(for: $0.day)] } ?? []) + [KeyHint("r", "refresh")]
    }

    var statusMessage: String? { saved.errorMessage ?? favourites.message }

    func handle(_ event: InputEvent) -> InputResult {
        guard case let .key(press) = event else { return .ignored }
        if let offset = press.selectionOffset(pageSize: ui.pageSize(of: .photos)) {
            photos.send(.moveSelection(by: offset))
            return .handled
        }
        switch press {
        case KeyPress(.character("r")):
            actions.start { [photos] in await photos.send(.catalog(.updateItems)).finish() }
        case KeyPress(.character("f")):
            guard let photo = photos.selectedPhoto else { return .handled }
            favourites.send(.toggle(photo.day))
        case KeyPress(.character("s")), KeyPress(.enter):
            // Disabled while its save runs (the store ignores it then too).
            guard let photo = photos.selectedPhoto, !saved.state.isSaving(photo) else { return .handled }
            actions.start { [saved] in await saved.send(.toggleSave(photo)).finish() }
        default:
            return .ignored
        }
        return .handled
    }
}
