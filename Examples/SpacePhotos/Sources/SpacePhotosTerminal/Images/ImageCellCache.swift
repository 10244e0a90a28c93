import BaselineImages
import Observation
import TerminalUI

/// Images scaled to the cells of the panels that show them, kept for the
/// frames that follow: a view asks with ``cells(for:)`` while drawing, and
/// when they are missing declares a frame task that runs ``prepare(_:from:)``
/// (scaling runs off the main actor); the new entry draws the next frame.
@MainActor
@Observable
public final class ImageCellCache {
    /// An image at a panel size.
    public struct Key: Hashable, Sendable {
        /// What the image is (its URL, or the saved photo it belongs to).
        public var image: String
        /// The width of the panel the image is fitted into, in cells.
        public var columns: Int
        /// The height of the panel the image is fitted into, in cells.
        public var rows: Int

        /// The key of `image` in a panel of `columns` × `rows` cells.
        public init(image: String, columns: Int, rows: Int) {
            self.image = image
            self.columns = columns
            self.rows = rows
        }

        /// An id for the frame task that prepares it.
        var taskID: String { "image-cells \(columns)x\(rows) \(image)" }
    }

    private var entries: [Key: HalfBlockCells] = [:]
    /// Oldest first, for eviction.
    @ObservationIgnored private var order: [Key] = []
    /// How many entries are kept (panel sizes change on resize; images
    /// change with the selection).
    public let capacity: Int

    /// An empty cache keeping at most `capacity` entries (at least 1), dropping
    /// the oldest first.
    public init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
    }

    /// The cells of `key`, if they are ready.
    public func cells(for key: Key) -> HalfBlockCells? {
        entries[key]
    }

    /// Scales `image` for `key` (off the main actor) and keeps it.
    public func prepare(_ key: Key, from image: DecodedImage) async {
        guard entries[key] == nil else { return }
        let cells = await HalfBlockCells.make(from: image, fitting: key.columns, rows: key.rows)
        guard !Task.isCancelled else { return }
        entries[key] = cells
        order.append(key)
        if order.count > capacity {
            entries[order.removeFirst()] = nil
        }
    }

    /// Draws `image` fitted and centred in `rect`, or, while its cells are
    /// being made, nothing but a task to make them.
    public func draw(_ image: DecodedImage, named name: String, in rect: Rect, on frame: inout Frame) {
        guard rect.width > 0, rect.height > 0 else { return }
        let key = Key(image: name, columns: rect.width, rows: rect.height)
        guard let cells = cells(for: key) else {
            frame.task(id: key.taskID) { [weak self] in await self?.prepare(key, from: image) }
            return
        }
        let x = rect.x + (rect.width - cells.columns) / 2
        let y = rect.y + (rect.height - cells.rows) / 2
        cells.draw(at: x, y, on: &frame.buffer)
    }
}
