import BaselineImages
import Foundation
import Testing

@Suite("MemoryImageCache", .timeLimit(.minutes(1)))
struct MemoryImageCacheTests {
    /// A 2×2 image (16 bytes) whose pixels are all `value`.
    func image(_ value: UInt8, width: Int = 2) throws -> DecodedImage {
        try DecodedImage(width: width, height: 2, pixels: Array(repeating: value, count: width * 8))
    }

    let a = URL(string: "https://images.test/a.png")!
    let b = URL(string: "https://images.test/b.png")!
    let c = URL(string: "https://images.test/c.png")!
    let d = URL(string: "https://images.test/d.png")!

    @Test func evictsTheLeastRecentlyUsedByBytes() throws {
        let cache = MemoryImageCache(limit: 48)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2), for: b)
        cache.insert(try image(3), for: c)
        #expect(cache.totalCost == 48)
        // Using a makes b the least recently used.
        #expect(cache.image(for: a) == (try image(1)))
        cache.insert(try image(4), for: d)
        #expect(cache.image(for: b) == nil)
        #expect(cache.image(for: a) != nil && cache.image(for: c) != nil && cache.image(for: d) != nil)
        #expect(cache.totalCost == 48)
        #expect(cache.count == 3)
    }

    @Test func sizesOfOneURLAreHeldApartAndRemovedTogether() throws {
        let cache = MemoryImageCache(limit: 1_000)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2), for: ImageCacheKey(ImageRequest(a, size: 1)))
        cache.insert(try image(3), for: ImageCacheKey(ImageRequest(a, processors: [.cropToSquare])))
        cache.insert(try image(4), for: b)
        #expect(cache.count == 4)
        #expect(cache.image(for: ImageCacheKey(ImageRequest(a, size: 1))) == (try image(2)))
        // A size below 1 is the size 1 a decoder would use.
        #expect(cache.image(for: ImageCacheKey(ImageRequest(a, size: -5))) == (try image(2)))
        cache.removeImage(for: a)  // the full-size image only
        #expect(cache.count == 3)
        cache.removeImages(for: a)  // every one made from a
        #expect(cache.count == 1 && cache.contains(b))
        #expect(cache.totalCost == 16)
    }

    @Test func aLargeInsertEvictsSeveral() throws {
        let cache = MemoryImageCache(limit: 48)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2), for: b)
        cache.insert(try image(3), for: c)
        cache.insert(try image(4, width: 4), for: d)  // 32 bytes: a and b go
        #expect(!cache.contains(a) && !cache.contains(b))
        #expect(cache.contains(c) && cache.contains(d))
        #expect(cache.totalCost == 48)
    }

    @Test func replacingAnImageUpdatesTheCost() throws {
        let cache = MemoryImageCache(limit: 100)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2, width: 4), for: a)
        #expect(cache.totalCost == 32)
        #expect(cache.count == 1)
        #expect(cache.image(for: a) == (try image(2, width: 4)))
    }

    @Test func anImageOverTheWholeLimitIsNotKept() throws {
        let cache = MemoryImageCache(limit: 20)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2, width: 4), for: b)
        #expect(!cache.contains(b))
        #expect(cache.contains(a))
        #expect(cache.totalCost == 16)
    }

    @Test func removalsFreeTheirBytesAndSlotsAreReused() throws {
        let cache = MemoryImageCache(limit: 48)
        cache.insert(try image(1), for: a)
        cache.insert(try image(2), for: b)
        cache.removeImage(for: a)
        #expect(cache.totalCost == 16)
        cache.insert(try image(3), for: c)
        cache.insert(try image(4), for: d)
        #expect(cache.count == 3)
        // The order survives the slot reuse: b is still the oldest.
        cache.insert(try image(5), for: a)
        #expect(!cache.contains(b))
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache.image(for: c) == nil)
    }
}
