import BaselineConcurrency
import Foundation

/// Decoded images in memory, bounded by the bytes of their pixels: when an
/// insert goes over the limit, the least recently used images are dropped.
/// Images are held by ``ImageCacheKey``, derived from an ``ImageRequest``
/// (its URL, size and processors); methods that take a URL mean the
/// full-size image.
///
/// Thread-safe and synchronous (a lock, held briefly), so a view can ask it
/// for an image while it is being built. Lookups, inserts and evictions are
/// O(1): a dictionary indexes a doubly linked list kept in an array.
///
/// ```swift
/// let cache = MemoryImageCache(limit: 64 * 1024 * 1024)
/// cache.insert(image, for: url)
/// cache.image(for: url)      // the image, now the most recently used
/// ```
public final class MemoryImageCache: Sendable {
    /// Slot index meaning "none".
    private static let none = -1

    private struct Slot {
        var key: ImageCacheKey?
        var image: DecodedImage?
        /// Towards the most recently used end.
        var previous = MemoryImageCache.none
        /// Towards the least recently used end.
        var next = MemoryImageCache.none
    }

    private struct State {
        var indices: [ImageCacheKey: Int] = [:]
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var mostRecent = MemoryImageCache.none
        var leastRecent = MemoryImageCache.none
        var totalCost = 0

        mutating func unlink(_ index: Int) {
            let (previous, next) = (slots[index].previous, slots[index].next)
            if previous != MemoryImageCache.none { slots[previous].next = next } else { mostRecent = next }
            if next != MemoryImageCache.none { slots[next].previous = previous } else { leastRecent = previous }
            slots[index].previous = MemoryImageCache.none
            slots[index].next = MemoryImageCache.none
        }

        mutating func makeMostRecent(_ index: Int) {
            slots[index].next = mostRecent
            slots[index].previous = MemoryImageCache.none
            if mostRecent != MemoryImageCache.none { slots[mostRecent].previous = index }
            mostRecent = index
            if leastRecent == MemoryImageCache.none { leastRecent = index }
        }

        mutating func remove(at index: Int) {
            unlink(index)
            if let key = slots[index].key { indices[key] = nil }
            totalCost -= slots[index].image?.byteCount ?? 0
            // Release the pixels now; the slot is reused by a later insert.
            slots[index] = Slot()
            freeSlots.append(index)
        }
    }

    /// The most bytes of pixels kept.
    public let limit: Int
    private let state = LockedValue(State())

    /// Creates an empty cache holding at most `limit` bytes of pixels.
    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The bytes of pixels held now.
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// How many images are held.
    public var count: Int { state.withLock { $0.indices.count } }

    /// The image for `key`, which becomes the most recently used; `nil` when
    /// it is not held.
    public func image(for key: ImageCacheKey) -> DecodedImage? {
        state.withLock { state in
            guard let index = state.indices[key] else { return nil }
            state.unlink(index)
            state.makeMostRecent(index)
            return state.slots[index].image
        }
    }

    /// Whether an image for `key` is held, without changing the order.
    public func contains(_ key: ImageCacheKey) -> Bool {
        state.withLock { $0.indices[key] != nil }
    }

    /// Keeps `image` for `key` as the most recently used, then drops least
    /// recently used images until the total is within the limit. An image
    /// larger than the whole limit is not kept (and replaces nothing).
    public func insert(_ image: DecodedImage, for key: ImageCacheKey) {
        state.withLock { state in
            guard image.byteCount <= limit else { return }
            if let index = state.indices[key] {
                state.totalCost += image.byteCount - (state.slots[index].image?.byteCount ?? 0)
                state.slots[index].image = image
                state.unlink(index)
                state.makeMostRecent(index)
            } else {
                let index: Int
                if let free = state.freeSlots.popLast() {
                    index = free
                } else {
                    index = state.slots.count
                    state.slots.append(Slot())
                }
                state.slots[index].key = key
                state.slots[index].image = image
                state.indices[key] = index
                state.totalCost += image.byteCount
                state.makeMostRecent(index)
            }
            while state.totalCost > limit, state.leastRecent != MemoryImageCache.none {
                state.remove(at: state.leastRecent)
            }
        }
    }

    /// Drops the image for `key`, if held.
    public func removeImage(for key: ImageCacheKey) {
        state.withLock { state in
            if let index = state.indices[key] { state.remove(at: index) }
        }
    }

    /// Drops every image.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    // MARK: By URL, for full-size images

    /// The full-size image for `url`: ``image(for:)-(ImageCacheKey)`` with the URL's key.
    public func image(for url: URL) -> DecodedImage? {
        image(for: ImageCacheKey(url: url))
    }

    /// Whether the full-size image for `url` is held.
    public func contains(_ url: URL) -> Bool {
        contains(ImageCacheKey(url: url))
    }

    /// Keeps `image` as the full-size image for `url`.
    public func insert(_ image: DecodedImage, for url: URL) {
        insert(image, for: ImageCacheKey(url: url))
    }

    /// Drops the full-size image for `url`, if held.
    public func removeImage(for url: URL) {
        removeImage(for: ImageCacheKey(url: url))
    }

    /// Drops every image made from `url`: the full-size one, thumbnails and
    /// processed ones. For an image that changed on the server.
    public func removeImages(for url: URL) {
        state.withLock { state in
            for index in state.indices.filter({ $0.key.url == url }).map(\.value) { state.remove(at: index) }
        }
    }
}
