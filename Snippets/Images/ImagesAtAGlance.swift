// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

// snippet.show
// 1. One pipeline for the app, on the app's HTTP client.
var configuration = ImagePipeline.Configuration()  // 64 MiB of pixels in memory
let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
configuration.diskCache = try DiskImageCache(directory: caches.appending(path: "Images"), limit: 256 << 20)
let pipeline = ImagePipeline(
    client: HTTPClient(baseURL: URL(string: "https://photos.example")!),
    configuration: configuration
)

// 2. An image by URL: memory, then disk, then the network; decoded off the main actor.
let url = URL(string: "/photos/42.jpg")!
let image = try await pipeline.image(for: url)
print(image.width, image.height, image.pixel(x: 0, y: 0))  // RGBA, upright
// One request value carries the size, processors, priority and cache policy.
let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 300))  // a JPEG decoded at 1/8 scale

// 3. The next rows' thumbnails, fetched at low priority before they are needed.
pipeline.prefetch((43...50).map { ImageRequest(URL(string: "/photos/\($0).jpg")!, size: 300) })

// 4. For a view: a loader whose phase is .empty, .success(image) or .failure(error).
let loader = ImageLoader(pipeline: pipeline)
await loader.load(url)
if case let .success(shown) = loader.phase { print(shown == image, thumbnail.width <= 300) }
