import Foundation

#if canImport(ImageIO)
// ImageIO, in ImageIODecoding.swift.
#elseif canImport(CJPEGShim)
import CJPEGShim
#endif

/// Decodes JPEG: with ImageIO on Apple platforms, with the system's libjpeg
/// (libjpeg-turbo) elsewhere. Colour, grayscale and CMYK JPEGs, baseline or
/// progressive, come out as opaque RGBA, turned upright by their EXIF
/// orientation (as browsers and photo viewers show them) unless the decoder
/// is made with `appliesOrientation: false`.
///
/// A corrupt JPEG throws ``ImageError/corruptImage(_:)``: libjpeg's fatal
/// errors are caught in a small C shim (libjpeg reports them by `longjmp`,
/// which Swift code cannot take part in), and its warnings that a scan is
/// missing data count as errors rather than giving a half-gray image.
///
/// Data that ends early, as a download cut short: on Linux, a JPEG missing
/// only its final end-of-image marker decodes whole, and a progressive JPEG
/// decodes to what its complete scans make (a coarser image of the full
/// size), as browsers show one that is still arriving. A JPEG whose first
/// scan is incomplete, a baseline one included, is corrupt. A JPEG with more
/// scans than ``ImageDecodingLimits/maximumScanCount`` throws
/// ``ImageError/tooLarge(_:)``; one of a process libjpeg does not decode
/// (lossless, hierarchical, 12-bit) throws
/// ``ImageError/unsupportedImage(mediaType:)``.
public struct JPEGDecoder: ImageDecoding {
    /// Whether images are turned upright by their EXIF orientation.
    public var appliesOrientation: Bool

    /// Creates a decoder.
    ///
    /// - Parameter appliesOrientation: Whether to turn images upright by the
    ///   orientation their EXIF data records (the default), or to return the
    ///   pixels as stored.
    public init(appliesOrientation: Bool = true) {
        self.appliesOrientation = appliesOrientation
    }

    /// Whether the bytes start with a JPEG's start-of-image marker.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == .jpeg
    }

    /// Decodes the JPEG to RGBA, turned upright when ``appliesOrientation`` is `true`.
    public func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        try decode(data, limits: limits, maximumPixelSize: nil)
    }

    /// Decodes the JPEG to RGBA no larger than `maximumPixelSize` on its
    /// longer side, turned upright when ``appliesOrientation`` is `true`.
    ///
    /// With libjpeg, the image is decoded at the smallest of 1/8, 1/4, 1/2 or
    /// full scale that still covers `maximumPixelSize`, then shrunk the rest
    /// of the way by area averaging: a 300-pixel thumbnail of a 2400×1600
    /// photo decodes 1/64 of its pixels. `limits` apply to the scaled size.
    public func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int) throws -> DecodedImage {
        try decode(data, limits: limits, maximumPixelSize: Optional(maximumPixelSize))
    }

    private func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int?) throws -> DecodedImage {
        guard canDecode(data) else { throw ImageError.unsupportedImage(mediaType: nil) }
        var stored = try Self.decodeAsStored(data, limits: limits, maximumPixelSize: maximumPixelSize)
        if let maximumPixelSize { stored = stored.resized(toFit: maximumPixelSize) }
        // Read by our own parser on every platform, so an image comes out
        // the same way up everywhere.
        guard appliesOrientation, let orientation = ImageOrientation(jpeg: data) else { return stored }
        return stored.oriented(orientation)
    }

    /// The largest of 1, 2, 4 and 8 that divides a `width` × `height` image
    /// to no less than `maximumPixelSize` on its longer side (libjpeg rounds
    /// scaled sides up).
    static func scaleDenominator(width: Int, height: Int, maximumPixelSize: Int?) -> Int {
        guard let maximumPixelSize else { return 1 }
        let longer = max(width, height)
        return [8, 4, 2].first { (longer + $0 - 1) / $0 >= maximumPixelSize } ?? 1
    }

    /// The pixels as the file stores them, by the platform's decoder, reduced
    /// on the way where the decoder can (libjpeg's scaling).
    private static func decodeAsStored(
        _ data: Data,
        limits: ImageDecodingLimits,
        maximumPixelSize: Int?
    ) throws -> DecodedImage {
        #if canImport(ImageIO)
        // ImageIO's thumbnail API decodes at a reduced scale, as libjpeg's
        // scaling does below; the caller shrinks the rest of the way.
        return try ImageIODecoding.decode(data, limits: limits, maximumPixelSize: maximumPixelSize)
        #elseif canImport(CJPEGShim)
        return try decodeWithLibJPEG(data, limits: limits, maximumPixelSize: maximumPixelSize)
        #else
        throw ImageError.unsupportedImage(mediaType: ImageFormat.jpeg.mediaType)
        #endif
    }

    #if !canImport(ImageIO) && canImport(CJPEGShim)
    /// Large enough for any libjpeg message (JMSG_LENGTH_MAX is 200).
    private static let messageCapacity = 256

    private static func decodeWithLibJPEG(
        _ data: Data,
        limits: ImageDecodingLimits,
        maximumPixelSize: Int?
    ) throws -> DecodedImage {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> DecodedImage in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress else { throw ImageError.corruptImage("Empty JPEG data") }
            var message = [CChar](repeating: 0, count: messageCapacity)

            // The header first: the size is checked before any pixel memory
            // exists. Then the scale, and the size at that scale.
            var width: Int32 = 0
            var height: Int32 = 0
            try check(
                baseline_jpeg_read_size(base, bytes.count, 1, &width, &height, &message, message.count),
                message,
                limits
            )
            // libjpeg's sides are at most 65,535: these products cannot overflow.
            let scale = Int32(
                scaleDenominator(width: Int(width), height: Int(height), maximumPixelSize: maximumPixelSize)
            )
            if scale > 1 {
                try check(
                    baseline_jpeg_read_size(base, bytes.count, scale, &width, &height, &message, message.count),
                    message,
                    limits
                )
            }
            try limits.check(width: Int(width), height: Int(height))
            // Checked by the limits: width × height × 4 fits an Int.
            guard let byteCount = DecodedImage.byteCount(width: Int(width), height: Int(height)) else {
                throw ImageError.tooLarge("The image is \(width)×\(height) pixels")
            }

            // Uninitialised: libjpeg writes every byte of a successful decode,
            // and zero-filling first costs a fifth of a small image's decode.
            var status = BASELINE_JPEG_CORRUPT
            let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
                status = baseline_jpeg_decode_rgba(
                    base,
                    bytes.count,
                    scale,
                    workingMemoryBudget(for: limits),
                    Int32(clamping: limits.maximumScanCount),
                    output.baseAddress,
                    output.count,
                    width,
                    height,
                    &message,
                    message.count
                )
                initialized = status == BASELINE_JPEG_OK ? output.count : 0
            }
            try check(status, message, limits)
            return DecodedImage(width: Int(width), height: Int(height), validPixels: pixels)
        }
    }

    /// Throws the ``ImageError`` for a status of the shim's other than success.
    private static func check(_ status: Int32, _ message: [CChar], _ limits: ImageDecodingLimits) throws {
        switch status {
        case BASELINE_JPEG_OK:
            return
        case BASELINE_JPEG_OVER_BUDGET:
            throw ImageError.tooLarge(
                "The JPEG needs more memory to decode than its pixel limit allows (a progressive file keeps the full image's coefficients, whatever the scale)"
            )
        case BASELINE_JPEG_TOO_MANY_SCANS:
            throw ImageError.tooLarge(
                "The JPEG has more scans than the limit of \(limits.maximumScanCount) (each scan is a pass over the whole image)"
            )
        case BASELINE_JPEG_UNSUPPORTED:
            throw ImageError.unsupportedImage(mediaType: ImageFormat.jpeg.mediaType)
        default:
            throw ImageError.corruptImage(text(of: message))
        }
    }

    /// libjpeg's working memory for one decode: 8 bytes for each pixel the
    /// limits allow. A progressive JPEG keeps 2 bytes per coefficient of the
    /// full-size image (6 bytes a pixel at full colour resolution), so every
    /// image the limits admit whole still decodes, while a small file that
    /// declares a huge progressive image is refused even when asked for a
    /// thumbnail.
    private static func workingMemoryBudget(for limits: ImageDecodingLimits) -> Int {
        let (budget, overflow) = limits.maximumPixelCount.multipliedReportingOverflow(by: 8)
        return overflow ? Int.max : max(budget, 1)
    }

    private static func text(of message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "libjpeg could not read the JPEG" : "libjpeg: \(text)"
    }
    #endif
}
