// The image pipeline's usual performance pitfalls, each as the slow version
// and the fixed one.

// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

let client = HTTPClient(baseURL: URL(string: "https://photos.example")!)
let urls = (1...50).map { URL(string: "/photos/\($0).jpg")! }

// snippet.show
// snippet.per-view
// Slow: a pipeline per screen. Each has its own caches, so every screen
// downloads and decodes again what another has already shown.
@MainActor
final class SlowPhotoScreen {
    let pipeline = ImagePipeline(client: client)
}
// snippet.end

// snippet.shared
// Fast: one pipeline for the app, handed to every screen.
@MainActor
final class PhotoScreen {
    let pipeline: ImagePipeline
    init(pipeline: ImagePipeline) { self.pipeline = pipeline }
}
let shared = ImagePipeline(client: client)
let screen = PhotoScreen(pipeline: shared)
// snippet.end

// snippet.sequential
// Slow: one image after another; each waits for the previous round trip.
var one: [DecodedImage] = []
for url in urls {
    one.append(try await shared.image(for: url))
}
// snippet.end

// snippet.concurrent
// Fast: all at once; downloads overlap and decodes use every core.
let all = try await withThrowingTaskGroup(of: (Int, DecodedImage).self) { group in
    for (index, url) in urls.enumerated() {
        group.addTask { (index, try await shared.image(for: url)) }
    }
    var images = [DecodedImage?](repeating: nil, count: urls.count)
    for try await (index, image) in group { images[index] = image }
    return images.compactMap { $0 }
}
// snippet.end

// snippet.thumbnail
// A grid of 64-pixel thumbnails: scale once, when the image arrives, and keep
// the small copy, rather than scaling the full image on every draw.
let thumbnails = all.map { image in
    image.resized(width: 64, height: max(1, 64 * image.height / max(image.width, 1)))
}
// snippet.end
// snippet.prefetch-urls
// Slow: the rows load 300-pixel thumbnails, but the prefetch asks for the
// full images. Each is decoded whole into the memory cache (15 MiB for a
// 2400×1600 photo), and the row shrinks it again.
shared.prefetch(Array(urls[10..<20]))
// snippet.end

// snippet.prefetch-requests
// Fast: one function makes a row's request, and the prefetch uses it too, so
// the rows' loads are memory-cache hits on 240 kB thumbnails.
func rowRequest(_ url: URL) -> ImageRequest { ImageRequest(url, size: 300) }
shared.prefetch(urls[10..<20].map(rowRequest))
// snippet.end
_ = (screen, one, thumbnails)
