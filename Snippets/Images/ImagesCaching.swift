// The caches of a photo grid: decoded images in memory, encoded files on
// disk across launches, and the next rows fetched before they scroll in.

// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

let client = HTTPClient(baseURL: URL(string: "https://photos.example")!)
let photoURLs = (1...60).map { URL(string: "/photos/\($0).jpg")! }

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
if let image = pipeline.cachedImage(for: photoURLs[0]) {
    print("no placeholder needed: \(image.width)×\(image.height)")
}
// snippet.end

// snippet.prefetch
// Rows about to appear: fetched at low priority into the caches. A later
// image(for:) joins the work in flight at its own priority.
pipeline.prefetch(Array(photoURLs[8..<16]))

// The user scrolled the other way: stop what nobody waits for.
pipeline.cancelPrefetching(Array(photoURLs[12..<16]))
// snippet.end

// snippet.coalesce
// Twenty cells asking for one URL at once: one download, one decode.
try await withThrowingTaskGroup(of: DecodedImage.self) { group in
    for _ in 0..<20 {
        group.addTask { try await pipeline.image(for: photoURLs[0]) }
    }
    for try await _ in group {}
}
// snippet.end

// snippet.clear
// Signing out, or a "clear cache" button.
await pipeline.removeAllCachedImages()
print(pipeline.memoryCache.count, await configuration.diskCache?.totalSize ?? 0)
// snippet.end
