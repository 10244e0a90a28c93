import BaselineImages
import BaselineStore
import SpacePhotosCore
import TerminalUI

/// The Saved tab: the saved photos from the database, the selected one's
/// image as it was saved (no network needed), and removing it.
@MainActor
struct SavedScreen: Screen {
    let saved: Store<SavedPhotos.State, SavedPhotos.Action>
    let favourites: Store<Favourites.State, Favourites.Action>
    let ui: InterfaceState
    let images: ImageCellCache
    /// The selected photo's image, from the saved photos' pipeline (this view's loader).
    let image: ImageLoader
    let actions: ActionTasks

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let listWidth = max(30, min(48, rect.width * 2 / 5))
        let (listRect, detailRect) = rect.splitColumns(at: listWidth)
        let photos = saved.photos.value
        frame.buffer.drawBox(listRect, title: "Saved")
        let inner = listRect.inset(by: 1)
        guard inner.height > 2 else { return }
        if saved.photos.isLoading, photos.isEmpty {
            let spinner = frame.spinner(at: tick)
            frame.buffer.write("\(spinner) Reading the saved photos…", at: inner.x + 1, inner.y, style: Theme.secondary)
        } else if photos.isEmpty, saved.photos.loadError != nil {
            frame.buffer.write("The saved photos could not be read.", at: inner.x + 1, inner.y, style: Theme.error)
        } else if photos.isEmpty {
            frame.buffer.writeWrapped(
                "No saved photos yet. Save one on the Photos tab with s.",
                in: inner.inset(left: 1, right: 1),
                style: Theme.secondary
            )
        } else {
            frame.buffer.write("\(photos.count) saved", at: inner.x + 1, inner.y, style: Theme.secondary)
        }
        let rows = Rect(x: inner.x, y: inner.y + 2, width: inner.width, height: inner.height - 2)
        let selected = saved.selectedIndex
        for (line, index) in ui.visibleRows(of: .saved, count: photos.count, selected: selected, height: rows.height)
            .enumerated()
        {
            let entry = photos[index]
            frame.buffer.drawRow(
                " \(entry.photo.day)  \(entry.photo.title)",
                in: rows.row(line),
                selected: index == selected
            )
        }

        guard let entry = saved.selectedPhoto else {
            frame.buffer.drawBox(detailRect, title: "Photo")
            return
        }
        frame.buffer.drawBox(detailRect, title: entry.photo.title)
        let detail = detailRect.inset(top: 1, left: 2, bottom: 1, right: 2)
        let (imageRect, textRect) = detail.splitRows(at: detail.height - 4)
        let url = entry.imageURL
        let request = ImageRequest(url, size: max(imageRect.width, imageRect.height * 2))
        frame.task(id: "saved-image \(url) \(request.maximumPixelSize ?? 0)") { [image] in await image.load(request) }
        // The phase of the previous photo until this one's load starts: not shown.
        let phase = image.url == url ? image.phase : .empty
        switch phase {
        case let .success(image):
            images.draw(image, named: url.absoluteString, in: imageRect, on: &frame)
        case let .failure(error):
            frame.buffer.writeWrapped(
                "The saved image cannot be shown: \(ErrorMessage.line(for: error))",
                in: imageRect,
                style: Theme.error
            )
        case .empty:
            let spinner = frame.spinner(at: tick)
            frame.buffer.writeCentered(
                "\(spinner) Decoding the saved image…",
                in: imageRect,
                row: imageRect.y + imageRect.height / 2,
                style: Theme.secondary
            )
        }
        let kilobytes = max(1, entry.imageByteCount / 1024)
        frame.buffer.write(
            "\(entry.photo.day) · \(entry.mediaType), \(kilobytes) KiB, saved \(entry.savedAt.formatted(date: .abbreviated, time: .shortened))",
            at: textRect.x,
            textRect.y + 1,
            style: Theme.secondary,
            maxWidth: textRect.width
        )
        frame.buffer.write(
            favourites.state.label(for: entry.photo.day),
            at: textRect.x,
            textRect.y + 2,
            style: favourites.state.mine.contains(entry.photo.day) ? Theme.accent : Theme.secondary
        )
        frame.buffer.drawButton("Remove", at: textRect.x, textRect.maxY - 1, enabled: true)
    }

    var hints: [KeyHint] {
        [.listSelection, KeyHint("x", "remove")]
            + (saved.selectedPhoto.map { [favourites.state.hint(for: $0.photo.day)] } ?? [])
    }

    var statusMessage: String? { saved.errorMessage ?? favourites.message }

    func handle(_ event: InputEvent) -> InputResult {
        guard case let .key(press) = event else { return .ignored }
        if let offset = press.selectionOffset(pageSize: ui.pageSize(of: .saved)) {
            saved.send(.moveSelection(by: offset))
            return .handled
        }
        switch press.key {
        case .character("x"), .delete:
            actions.start { [saved] in await saved.send(.removeSelectedTapped).finish() }
            return .handled
        case .character("f") where press.modifiers.isEmpty:
            guard let entry = saved.selectedPhoto else { return .handled }
            favourites.send(.toggle(entry.photo.day))
            return .handled
        default:
            return .ignored
        }
    }
}
