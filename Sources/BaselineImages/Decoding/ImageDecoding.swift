import Foundation

/// Limits a decoder enforces on what a file can make it spend: a small file
/// can declare an enormous image, or a progressive JPEG of thousands of
/// scans.
public struct ImageDecodingLimits: Sendable {
    /// The largest width × height accepted, checked from the header before
    /// any pixel memory is allocated. The default, 50 million pixels, is
    /// 200 MB of RGBA.
    public var maximumPixelCount: Int

    /// The most scans a JPEG may have; one with more throws
    /// ``ImageError/tooLarge(_:)`` before the first scan over the limit is
    /// decoded.
    ///
    /// A progressive JPEG arrives in scans, each refining the whole image, and
    /// decoding each scan is a pass over all of the image's coefficients: a
    /// file of a few kilobytes made of thousands of near-empty scans costs
    /// thousands of passes. Encoders write about ten (libjpeg's progressive
    /// script writes 10 for colour, 6 for grey; a baseline JPEG has one scan
    /// per colour component at most). The default, 100, is the limit
    /// libjpeg-turbo's own fuzzers use. Enforced by libjpeg on Linux; ImageIO
    /// on Apple platforms applies its own.
    public var maximumScanCount: Int

    /// Creates limits.
    public init(maximumPixelCount: Int = 50_000_000, maximumScanCount: Int = 100) {
        self.maximumPixelCount = maximumPixelCount
        self.maximumScanCount = maximumScanCount
    }

    /// Throws ``ImageError/tooLarge(_:)`` for an image over the pixel limit,
    /// ``ImageError/corruptImage(_:)`` for a nonsensical size.
    public func check(width: Int, height: Int) throws {
        guard width > 0, height > 0 else {
            throw ImageError.corruptImage("Invalid image size \(width)×\(height)")
        }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, count <= maximumPixelCount, DecodedImage.byteCount(width: width, height: height) != nil else {
            throw ImageError.tooLarge(
                "The image is \(width)×\(height) pixels, more than the limit of \(maximumPixelCount) pixels"
            )
        }
    }
}

/// Turns encoded image bytes into a ``DecodedImage``.
///
/// ``ImagePipeline`` asks each of its decoders in turn whether it
/// ``canDecode(_:)`` the bytes and uses the first that can. Decoding is
/// synchronous and CPU-bound; the pipeline calls it off the main actor.
///
/// Add a format by conforming a type and listing it in
/// ``ImagePipeline/Configuration/decoders``:
///
/// ```swift
/// struct WebPDecoder: ImageDecoding {
///     func canDecode(_ data: Data) -> Bool { data.starts(with: Array("RIFF".utf8)) }
///     func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage { ... }
/// }
/// ```
public protocol ImageDecoding: Sendable {
    /// Whether the bytes look like this decoder's format (a cheap check of
    /// their first bytes, not a full parse).
    func canDecode(_ data: Data) -> Bool

    /// Decodes the bytes to RGBA.
    ///
    /// - Throws: ``ImageError``: ``ImageError/tooLarge(_:)`` when the file is
    ///   over `limits` (the pixel count checked before the pixels are
    ///   allocated), ``ImageError/corruptImage(_:)`` when the bytes are
    ///   truncated or malformed, ``ImageError/unsupportedImage(mediaType:)``
    ///   when they are not this decoder's format, or a variant of it that the
    ///   decoder cannot decode.
    func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage

    /// Decodes the bytes to RGBA no larger than `maximumPixelSize` on the
    /// longer side, keeping the aspect ratio: a thumbnail. Smaller images come
    /// out at their own size.
    ///
    /// The default decodes the whole image, then shrinks it with
    /// ``DecodedImage/resized(toFit:)``. A decoder that can do better decodes
    /// at a reduced size directly: ``JPEGDecoder`` has libjpeg decode at 1/2,
    /// 1/4 or 1/8 scale, which costs a fraction of the time and memory of a
    /// full decode.
    ///
    /// - Throws: As ``decode(_:limits:)``; `limits` apply to what is decoded.
    func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int) throws -> DecodedImage
}

extension ImageDecoding {
    /// Decodes the whole image, then shrinks it to fit `maximumPixelSize`.
    public func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int) throws -> DecodedImage {
        try decode(data, limits: limits).resized(toFit: maximumPixelSize)
    }
}

extension Array where Element == any ImageDecoding {
    /// Decodes `data` with the first decoder that recognises it: what the
    /// pipeline does with its ``ImagePipeline/Configuration/decoders``, for
    /// bytes that come from elsewhere (a saved file, a database).
    ///
    /// ```swift
    /// let image = try ImagePipeline.Configuration().decoders.decode(savedData, limits: ImageDecodingLimits())
    /// ```
    ///
    /// - Throws: ``ImageError``: ``ImageError/unsupportedImage(mediaType:)``
    ///   when no decoder recognises the bytes; a custom decoder's own error
    ///   becomes ``ImageError/corruptImage(_:)``.
    public func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        try decode(data) { decoder in try decoder.decode(data, limits: limits) }
    }

    /// Decodes `data` with the first decoder that recognises it, to a
    /// thumbnail no larger than `maximumPixelSize` on its longer side: see
    /// ``ImageDecoding/decode(_:limits:maximumPixelSize:)``.
    public func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int) throws -> DecodedImage {
        try decode(data) { decoder in try decoder.decode(data, limits: limits, maximumPixelSize: maximumPixelSize) }
    }

    private func decode(_ data: Data, with body: (any ImageDecoding) throws -> DecodedImage) throws -> DecodedImage {
        guard let decoder = first(where: { $0.canDecode(data) }) else {
            throw ImageError.unsupportedImage(mediaType: ImageFormat(sniffing: data)?.mediaType)
        }
        do {
            return try body(decoder)
        } catch let error as ImageError {
            throw error
        } catch {
            throw ImageError.corruptImage(String(describing: error))
        }
    }
}
