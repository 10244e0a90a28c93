import BaselineHTTP
import BaselineImages
import Foundation
import HTTPTypes

extension SavedPhotos {
    /// Saved photos whose images come from `pipeline`: from its disk cache
    /// when the catalog already showed them, else downloaded once.
    public init(repository: SavedPhotoRepository, pipeline: ImagePipeline) {
        self.init(repository: repository) { url in
            let data = try await pipeline.data(for: url)
            // The pipeline hands out only bytes it recognised as an image.
            let mediaType = ImageFormat(sniffing: data)?.mediaType ?? "application/octet-stream"
            return (data, mediaType)
        }
    }
}

nonisolated extension SavedPhotoRepository {
    /// An image pipeline whose images are the saved ones, read from this
    /// database (no network): request ``SavedPhoto/imageURL``. It decodes
    /// and caches as the catalog's pipeline does, so a view loads a saved
    /// image with an `ImageLoader` like any other.
    public func imagePipeline(configuration: ImagePipeline.Configuration = .init()) -> ImagePipeline {
        ImagePipeline(
            client: HTTPClient(baseURL: SavedPhoto.imageBaseURL, transport: SavedImageTransport(repository: self)),
            configuration: configuration
        )
    }
}

nonisolated extension SavedPhoto {
    /// Where ``SavedPhotoRepository/imagePipeline(configuration:)`` finds
    /// the saved image: the day, and the time it was saved, so that saving
    /// the photo again is a new image to the caches.
    public var imageURL: URL {
        Self.imageBaseURL.appendingPathComponent(photo.day)
            .appending(queryItems: [URLQueryItem(name: "saved", value: String(savedAt.timeIntervalSince1970))])
    }

    /// A host that never resolves: requests stay in the app.
    static let imageBaseURL = URL(string: "http://saved-photos.invalid")!
}

/// Answers `GET /<day>` with the image saved for that day (404 when none is).
struct SavedImageTransport: HTTPTransport {
    let repository: SavedPhotoRepository

    func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        let path = request.path?.split(separator: "?").first.map(String.init) ?? ""
        guard request.method == .get, let day = PhotoDay.date(from: String(path.drop { $0 == "/" })),
            let data = try await repository.imageData(for: day)
        else {
            return (HTTPResponse(status: .notFound), .empty)
        }
        return (HTTPResponse(status: .ok, headerFields: [.contentLength: String(data.count)]), HTTPBody(data))
    }
}
