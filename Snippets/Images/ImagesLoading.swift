// A photo viewer's images: one pipeline for the app, an image by URL, and
// the state a view shows while it loads.

// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

// snippet.show
// snippet.pipeline
// One pipeline for the app, sharing the API client: its middleware
// (authentication, retries, logging) applies to image requests too.
let client = HTTPClient(baseURL: URL(string: "https://photos.example")!)
let pipeline = ImagePipeline(client: client)
// snippet.end

// snippet.image
// An absolute URL is fetched from its own host; a relative one from the
// client's base URL.
let photoURL = URL(string: "/photos/42.jpg")!
do {
    let image = try await pipeline.image(for: photoURL)
    print("\(image.width)×\(image.height), \(image.byteCount) bytes of RGBA")
} catch let error as ImageError {
    // .badStatus(404), .unsupportedImage, .corruptImage, .tooLarge, .transport
    print(error.description)
}
// snippet.end

// snippet.sizes
// A list row shows 300 pixels: decode no more than that. An avatar: cropped
// to a square and scaled once; the cache keeps the result.
let thumbnail = try await pipeline.image(for: ImageRequest(photoURL, size: 300))
let avatarRequest = ImageRequest(
    URL(string: "/members/7/photo.jpg")!,
    size: 128,
    processors: [.cropToSquare, .resize(width: 64, height: 64)]
)
let avatar = try await pipeline.image(for: avatarRequest)
print(thumbnail.width, avatar.width)
// snippet.end

// snippet.priority
// The photo the user opened goes before every row still waiting to download.
let hero = try await pipeline.image(for: ImageRequest(photoURL, priority: .high))
print(hero.width)
// snippet.end

// snippet.original
// The file itself, as the server sent it: to save or share the original.
let original = try await pipeline.data(for: photoURL)
try original.write(to: FileManager.default.temporaryDirectory.appending(path: "42.jpg"))
// snippet.end

// snippet.loader
// A view's state: .empty while loading, then .success or .failure.
@MainActor
func showPhoto(_ url: URL, with loader: ImageLoader) async {
    await loader.load(url)  // returns when the phase is final
    switch loader.phase {
    case .empty:
        print("placeholder")  // cancelled, or superseded by a newer load
    case let .success(image):
        print("draw \(image.width)×\(image.height)")
    case let .failure(error):
        print("show \(error)")
    }
}

let loader = ImageLoader(pipeline: pipeline)
await showPhoto(photoURL, with: loader)

// A view that shows the photo 300 pixels wide asks for that size.
await loader.load(ImageRequest(photoURL, size: 300))
print(loader.request?.maximumPixelSize == 300, loader.phase.image?.width ?? 0)
// snippet.end
