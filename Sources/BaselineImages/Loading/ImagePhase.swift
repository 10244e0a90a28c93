/// Where the load of one image stands, for a view to render: nothing yet
/// (show a placeholder), the image, or why it failed.
///
/// ```swift
/// switch loader.phase {
/// case .empty: ProgressView()
/// case let .success(image): BitmapView(image)      // your rendering of DecodedImage
/// case let .failure(error): Label(error.description, systemImage: "photo.badge.exclamationmark")
/// }
/// ```
public enum ImagePhase: Sendable, Equatable {
    /// No image yet: nothing asked for, loading, or the load was cancelled.
    case empty
    /// The image loaded.
    case success(DecodedImage)
    /// The load failed.
    case failure(ImageError)

    /// The image, in ``success(_:)``.
    public var image: DecodedImage? {
        if case let .success(image) = self { image } else { nil }
    }

    /// The error, in ``failure(_:)``.
    public var error: ImageError? {
        if case let .failure(error) = self { error } else { nil }
    }
}
