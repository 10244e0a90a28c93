import Foundation

/// What a decoded image in memory stands for: the URL it came from, the
/// largest side a thumbnail was decoded to fit, and the processors applied
/// after decoding.
///
/// A URL alone converts to the key of its full-size image, so code that
/// never asks for thumbnails can keep passing URLs.
public struct ImageCacheKey: Hashable, Sendable {
    /// The image's URL.
    public var url: URL
    /// The longest side the image was decoded to fit, or `nil` for the full size.
    public var maximumPixelSize: Int?
    /// The ``ImageProcessor/identifier``s of the processors applied, in order.
    public var processors: [String]

    /// The key of `url` decoded to fit `maximumPixelSize` (`nil`: full size),
    /// then run through `processors`.
    public init(url: URL, maximumPixelSize: Int? = nil, processors: [ImageProcessor] = []) {
        self.url = url
        // As decoding reads it: no size below 1.
        self.maximumPixelSize = maximumPixelSize.map { max(1, $0) }
        self.processors = processors.map(\.identifier)
    }

    /// Whether this is the key of the unprocessed, full-size image.
    var isOriginal: Bool { maximumPixelSize == nil && processors.isEmpty }
}
