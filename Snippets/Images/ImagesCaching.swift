// The caches of a photo grid: decoded images in memory, encoded files on
// disk across launches, and the next rows fetched before they scroll in.

// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

let client = HTTPClient(baseURL: URL(string: "https://photos.example")!)
let photoURLs = (1...60).map { URL(string: "/photos/\($0).jpg")! }
// Each row shows its photo 300 pixels wide.
let rows = photoURLs.map { ImageRequest($0, size: 300) }

// snippet.show
// snippet.configure
let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
var configuration = ImagePipeline.Configuration()
// Decoded pixels are large: 4 bytes a pixel, so a 2400×1600 photo is 15 MiB.
configuration.memoryCacheLimit = 96 << 20
// The encoded files are small, and survive a restart.
configuration.diskCache = try DiskImageCache(
    directory: caches.appending(path: "Photos"),
    limit: 256 << 20
)
let pipeline = ImagePipeline(client: client, configuration: configuration)
// snippet.end

// snippet.cached
// What a cell shows at once, before any await: the image if memory has it.
if let image = pipeline.cachedImage(for: rows[0]) {
    print("no placeholder needed: \(image.width)×\(image.height)")
}
// snippet.end

// snippet.prefetch
// Rows about to appear: fetched at low priority into the caches, at the
// size the rows will ask for. A later image(for:) of the same request joins
// the work in flight at its own priority.
pipeline.prefetch(Array(rows[8..<16]))

// The user scrolled the other way: stop what nobody waits for.
pipeline.cancelPrefetching(Array(rows[12..<16]))
// snippet.end

// snippet.policy
// Pull to refresh: the server's current image; the caches' copies are replaced.
let fresh = try await pipeline.image(for: ImageRequest(photoURLs[0], cachePolicy: .reloadIgnoringCachedData))

// Offline: what memory or disk holds, or ImageError.notCached without a request.
do {
    let cached = try await pipeline.image(for: ImageRequest(photoURLs[1], cachePolicy: .returnCacheDataDontLoad))
    print(cached.width, fresh.width)
} catch ImageError.notCached {
    print("not seen before: show a placeholder until the network is back")
}
// snippet.end

// snippet.coalesce
// Twenty cells asking for one URL at once: one download, one decode.
try await withThrowingTaskGroup(of: DecodedImage.self) { group in
    for _ in 0..<20 {
        group.addTask { try await pipeline.image(for: rows[0]) }
    }
    for try await _ in group {}
}
// snippet.end

// snippet.clear
// Signing out, or a "clear cache" button.
await pipeline.removeAllCachedImages()
print(pipeline.memoryCache.count, await configuration.diskCache?.totalSize ?? 0)
// snippet.end
