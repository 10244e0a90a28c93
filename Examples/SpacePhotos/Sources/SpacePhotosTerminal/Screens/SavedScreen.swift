import BaselineImages
import SpacePhotosCore
import TerminalUI

/// Seed 004's Saved tab: the saved photos from the database, the selected
/// one's image as it was saved, and removing it.
@MainActor
struct SavedScreen {
    let browser: SavedPhotoBrowser
    let ui: InterfaceState
    let images: ImageCellCache

    func draw(into frame: inout Frame, in rect: Rect, tick: Int) {
        let listWidth = max(30, min(48, rect.width * 2 / 5))
        let (listRect, detailRect) = rect.splitColumns(at: listWidth)
        let photos = browser.saved.photos
        frame.buffer.drawBox(listRect, title: "Saved")
        let inner = listRect.inset(by: 1)
        guard inner.height > 2 else { return }
        if !browser.saved.isLoaded {
            let spinner = frame.spinner(at: tick)
            frame.buffer.write("\(spinner) Reading the saved photos…", at: inner.x + 1, inner.y, style: Theme.secondary)
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
        let selected = browser.selectedIndex
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

        guard let entry = browser.selectedPhoto else {
            frame.buffer.drawBox(detailRect, title: "Photo")
            return
        }
        frame.buffer.drawBox(detailRect, title: entry.photo.title)
        let detail = detailRect.inset(top: 1, left: 2, bottom: 1, right: 2)
        let (imageRect, textRect) = detail.splitRows(at: detail.height - 4)
        frame.task(id: "saved-image \(entry.photo.day)") { [browser] in await browser.loadSelectedImage() }
        let phase = browser.imageID == entry.id ? browser.imagePhase : .empty
        switch phase {
        case let .success(image):
            images.draw(image, named: "saved \(entry.photo.day) \(entry.imageByteCount)", in: imageRect, on: &frame)
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
        frame.buffer.drawButton("Remove", at: textRect.x, textRect.maxY - 1, enabled: true)
    }

    var hints: [KeyHint] {
        [ListNavigation.hint, KeyHint("x", "remove")]
    }

    func handle(_ press: KeyPress, actions: ActionTasks) -> Bool {
        if let offset = ListNavigation.offset(for: press, pageSize: ui.pageSize(of: .saved)) {
            browser.moveSelection(by: offset)
            return true
        }
        switch press.key {
        case .character("x"), .delete:
            actions.start { [browser] in await browser.removeSelected() }
            return true
        default:
            return false
        }
    }
}
