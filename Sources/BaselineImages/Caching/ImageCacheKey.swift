import Foundation

/// What a decoded image in memory stands for: the URL it came from and, for
/// a thumbnail, the largest side it was decoded to fit.
///
/// A URL alone converts to the key of its full-size image, so code that
/// never asks for thumbnails can keep passing URLs.
public struct ImageCacheKey: Hashable, Sendable {
    /// The image's URL.
    public var url: URL
    /// The longest side the image was decoded to fit, or `nil` for the full size.
    public var maximumPixelSize: Int?

    /// The key of `url` decoded to fit `maximumPixelSize` (`nil`: full size).
    public init(url: URL, maximumPixelSize: Int? = nil) {
        self.url = url
        self.maximumPixelSize = maximumPixelSize
    }
}
