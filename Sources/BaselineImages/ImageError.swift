/// Why an image could not be loaded or decoded.
///
/// Task cancellation is never wrapped: it surfaces as `CancellationError`,
/// so `catch is CancellationError` works, and an ``ImageLoader`` shows no
/// error for a load that was merely cancelled.
public enum ImageError: Error, Sendable, Equatable {
    /// The server answered with a status outside 200–299.
    case badStatus(Int)
    /// No decoder recognises the bytes, or the one that does cannot decode
    /// this variant of its format (a lossless or 12-bit JPEG on Linux); the
    /// response's `Content-Type`, or the format's media type, if known.
    case unsupportedImage(mediaType: String?)
    /// A decoder recognised the format but failed on the bytes (truncated,
    /// corrupt); the decoder's message.
    case corruptImage(String)
    /// The encoded data, the image's pixel count or a JPEG's scan count is
    /// over the configured limit; the message says which.
    case tooLarge(String)
    /// The request failed for another reason (no connection, a timeout); a
    /// description of the underlying error.
    case transport(String)
    /// The request allowed only cached images
    /// (``ImageRequest/CachePolicy/returnCacheDataDontLoad``), and neither
    /// the memory cache nor the disk cache held the image.
    case notCached
}

extension ImageError: CustomStringConvertible {
    /// A sentence describing the failure, for logs and error messages.
    public var description: String {
        switch self {
        case let .badStatus(status): "The server answered with status \(status)"
        case let .unsupportedImage(mediaType?): "Not a supported image (content type \(mediaType))"
        case .unsupportedImage(nil): "Not a supported image"
        case let .corruptImage(reason): "Corrupt image: \(reason)"
        case let .tooLarge(reason): "Image too large: \(reason)"
        case let .transport(reason): "Could not load the image: \(reason)"
        case .notCached: "The image is not cached, and the request does not allow loading it"
        }
    }
}
