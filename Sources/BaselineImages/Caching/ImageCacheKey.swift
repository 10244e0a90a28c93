import Foundation

/// What a decoded image in memory stands for: the URL it came from, the
/// largest side a thumbnail was decoded to fit, and the processors applied
/// after decoding.
///
/// Derived from an ``ImageRequest`` with ``init(_:)``: a request's
/// ``ImageRequest/priority`` and ``ImageRequest/cachePolicy`` say how to
/// load an image, not which image, so they are not part of the key. A URL
/// alone (``init(url:)``) is the key of its full-size, unprocessed image.
///
/// ```swift
/// let request = ImageRequest(url, size: 300)
/// pipeline.memoryCache.removeImage(for: ImageCacheKey(request))
/// ```
public struct ImageCacheKey: Hashable, Sendable {
    /// The image's URL.
    public var url: URL
    /// The longest side the image was decoded to fit, or `nil` for the full size.
    public var maximumPixelSize: Int?
    /// The ``ImageProcessor/identifier``s of the processors applied, in order.
    public var processors: [String]

    /// The key of the image `request` asks for: its URL, size and processors.
    public init(_ request: ImageRequest) {
        self.url = request.url
        // As decoding reads it: no size below 1.
        self.maximumPixelSize = request.maximumPixelSize.map { max(1, $0) }
        self.processors = request.processors.map(\.identifier)
    }

    /// The key of the full-size, unprocessed image at `url`.
    public init(url: URL) {
        self.url = url
        self.maximumPixelSize = nil
        self.processors = []
    }

    /// Whether this is the key of the unprocessed, full-size image.
    var isOriginal: Bool { maximumPixelSize == nil && processors.isEmpty }
}
