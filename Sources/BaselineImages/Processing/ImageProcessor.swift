/// A step applied to a decoded image before the pipeline caches and returns
/// it: resizing, cropping, or your own.
///
/// A processor's ``identifier`` is part of the memory cache's key, so two
/// requests for one URL with different processors are cached apart, and two
/// with the same processors share one result. Processing runs off the main
/// actor, after decoding, once per key.
///
/// ```swift
/// let avatar = try await pipeline.image(
///     for: ImageRequest(member.photoURL, size: 256, processors: [.cropToSquare, .resize(width: 64, height: 64)])
/// )
/// ```
///
/// Make your own with ``init(identifier:_:)``; the identifier must change
/// whenever the output would. Processors are equal when their identifiers
/// are, which is what lets an ``ImageRequest`` be `Hashable`.
public struct ImageProcessor: Hashable, Sendable, CustomStringConvertible {
    /// Names the processor and its parameters, as in `resize(64×64)`.
    public let identifier: String
    let process: @Sendable (DecodedImage) -> DecodedImage

    /// A processor named `identifier` that turns an image into `process`'s result.
    public init(identifier: String, _ process: @escaping @Sendable (DecodedImage) -> DecodedImage) {
        self.identifier = identifier
        self.process = process
    }

    /// The ``identifier``.
    public var description: String { identifier }

    /// Whether two processors have the same ``identifier``, and so the same output.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.identifier == rhs.identifier
    }

    /// Hashes the ``identifier``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    /// Applies the processor.
    public func callAsFunction(_ image: DecodedImage) -> DecodedImage {
        process(image)
    }

    /// Scales to exactly `width` × `height` (see ``DecodedImage/resized(width:height:)``).
    public static func resize(width: Int, height: Int) -> ImageProcessor {
        ImageProcessor(identifier: "resize(\(width)×\(height))") { $0.resized(width: width, height: height) }
    }

    /// Shrinks to fit `maximumPixelSize` on the longer side, keeping the
    /// aspect ratio (see ``DecodedImage/resized(toFit:)``). To decode less in
    /// the first place, give the request a size instead
    /// (``ImageRequest/maximumPixelSize``).
    public static func resize(toFit maximumPixelSize: Int) -> ImageProcessor {
        ImageProcessor(identifier: "resize(fit \(maximumPixelSize))") { $0.resized(toFit: maximumPixelSize) }
    }

    /// Keeps the rectangle at (`x`, `y`) of `width` × `height` pixels, cut
    /// to the image's bounds (see ``DecodedImage/cropped(x:y:width:height:)``).
    public static func crop(x: Int, y: Int, width: Int, height: Int) -> ImageProcessor {
        ImageProcessor(identifier: "crop(\(x),\(y) \(width)×\(height))") {
            $0.cropped(x: x, y: y, width: width, height: height)
        }
    }

    /// Keeps the largest centred square: the shape of an avatar.
    public static var cropToSquare: ImageProcessor {
        ImageProcessor(identifier: "crop(square)") { image in
            let side = min(image.width, image.height)
            return image.cropped(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
        }
    }
}

extension DecodedImage {
    /// The rectangle at (`x`, `y`) of `width` × `height` pixels, cut to the
    /// image's bounds. A rectangle wholly outside gives a 1×1 transparent
    /// image rather than an error: there is nothing to show, and nothing
    /// went wrong decoding.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> DecodedImage {
        // Saturating: extreme arguments clamp to the bounds instead of overflowing.
        let left = min(max(0, x), width)
        let top = min(max(0, y), height)
        let right = min(width, x.addingReportingOverflow(max(0, cropWidth)).overflow ? width : x + max(0, cropWidth))
        let bottom = min(
            height,
            y.addingReportingOverflow(max(0, cropHeight)).overflow ? height : y + max(0, cropHeight)
        )
        guard right > left, bottom > top else {
            return DecodedImage(width: 1, height: 1, validPixels: [0, 0, 0, 0])
        }
        if left == 0, top == 0, right == width, bottom == height { return self }
        let rowBytes = (right - left) * 4
        var output: [UInt8] = []
        output.reserveCapacity(rowBytes * (bottom - top))
        for row in top..<bottom {
            let start = (row * width + left) * 4
            output += pixels[start..<(start + rowBytes)]
        }
        return DecodedImage(width: right - left, height: bottom - top, validPixels: output)
    }
}
