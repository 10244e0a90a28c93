/// One pixel: red, green, blue and alpha, 8 bits each, alpha not premultiplied.
public struct RGBA: Sendable, Hashable {
    /// Red, 0–255.
    public var r: UInt8
    /// Green, 0–255.
    public var g: UInt8
    /// Blue, 0–255.
    public var b: UInt8
    /// Alpha: 0 is transparent, 255 opaque.
    public var a: UInt8

    /// Creates a pixel; opaque unless `a` says otherwise.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }
}

/// A decoded bitmap in a platform-neutral form: what a UI turns into its own
/// image type (a `CGImage`, a terminal's block characters, a texture).
///
/// Pixels are row-major RGBA, 8 bits per channel, with straight (not
/// premultiplied) alpha, top row first.
///
/// ```swift
/// let image = try await pipeline.image(for: url)
/// let thumbnail = image.resized(width: 64, height: 64 * image.height / max(image.width, 1))
/// let corner = image.pixel(x: 0, y: 0)     // RGBA(r: 255, g: 0, b: 0, a: 255)
/// ```
public struct DecodedImage: Sendable, Hashable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// Row-major RGBA, 8 bits per channel, straight (not premultiplied)
    /// alpha; `4 * width * height` bytes.
    public let pixels: [UInt8]

    /// How many bytes the pixels take: what the memory cache counts.
    public var byteCount: Int { pixels.count }

    /// Creates an image from RGBA pixels.
    ///
    /// - Throws: ``ImageError/corruptImage(_:)`` when a dimension is negative
    ///   or `pixels` does not hold exactly `4 * width * height` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard width >= 0, height >= 0 else {
            throw ImageError.corruptImage("Negative image size \(width)×\(height)")
        }
        guard let expected = Self.byteCount(width: width, height: height), pixels.count == expected else {
            throw ImageError.corruptImage("\(pixels.count) bytes of pixels for a \(width)×\(height) RGBA image")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// For decoders and the resizer, which size the buffer themselves.
    init(width: Int, height: Int, validPixels pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `4 * width * height`, or `nil` when it overflows.
    static func byteCount(width: Int, height: Int) -> Int? {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        let (bytes, bytesOverflow) = count.multipliedReportingOverflow(by: 4)
        return overflow || bytesOverflow ? nil : bytes
    }

    /// The pixel at column `x`, row `y` (row 0 is the top).
    ///
    /// - Precondition: `0 <= x < width` and `0 <= y < height`.
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(
            (0..<width).contains(x) && (0..<height).contains(y),
            "Pixel (\(x), \(y)) is outside a \(width)×\(height) image"
        )
        let offset = (y * width + x) * 4
        return RGBA(r: pixels[offset], g: pixels[offset + 1], b: pixels[offset + 2], a: pixels[offset + 3])
    }

    /// A copy shrunk by area averaging so that its longer side is at most
    /// `maximumPixelSize`, keeping the aspect ratio (each side rounded, and at
    /// least 1). An image that already fits is returned as it is.
    ///
    /// ```swift
    /// let thumbnail = photo.resized(toFit: 300)  // 2400×1600 → 300×200
    /// ```
    public func resized(toFit maximumPixelSize: Int) -> DecodedImage {
        let limit = max(1, maximumPixelSize)
        let longer = max(width, height)
        guard longer > limit else { return self }
        let scale = Double(limit) / Double(longer)
        return resized(
            width: width >= height ? limit : Int((Double(width) * scale).rounded()),
            height: height > width ? limit : Int((Double(height) * scale).rounded())
        )
    }

    /// A copy scaled to `width` × `height` pixels by area averaging (a box
    /// filter): each new pixel is the average of the source area it covers,
    /// weighted by coverage, so downscaling keeps fine detail as its average
    /// colour instead of dropping it. Colours are averaged weighted by alpha,
    /// so transparent pixels do not darken their neighbours.
    ///
    /// Meant for thumbnails and terminal rendering; upscaling works too, but
    /// gives blocks rather than smooth edges. Sizes below 1 count as 1.
    public func resized(width newWidth: Int, height newHeight: Int) -> DecodedImage {
        let targetWidth = max(1, newWidth)
        let targetHeight = max(1, newHeight)
        if targetWidth == width, targetHeight == height { return self }
        guard width > 0, height > 0 else {
            // Nothing to average: a transparent image of the asked size.
            return DecodedImage(
                width: targetWidth,
                height: targetHeight,
                validPixels: [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
            )
        }
        let columns = Self.spans(from: width, to: targetWidth)
        let rows = Self.spans(from: height, to: targetHeight)
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for (ty, row) in rows.enumerated() {
                    for (tx, column) in columns.enumerated() {
                        var red = 0.0
                        var green = 0.0
                        var blue = 0.0
                        var alpha = 0.0
                        for (dy, rowWeight) in row.weights.enumerated() {
                            let rowStart = (row.start + dy) * width
                            for (dx, columnWeight) in column.weights.enumerated() {
                                let offset = (rowStart + column.start + dx) * 4
                                let weight = rowWeight * columnWeight
                                let a = Double(source[offset + 3]) * weight
                                red += Double(source[offset]) * a
                                green += Double(source[offset + 1]) * a
                                blue += Double(source[offset + 2]) * a
                                alpha += a
                            }
                        }
                        let offset = (ty * targetWidth + tx) * 4
                        if alpha > 0 {
                            target[offset] = Self.channel(red / alpha)
                            target[offset + 1] = Self.channel(green / alpha)
                            target[offset + 2] = Self.channel(blue / alpha)
                            target[offset + 3] = Self.channel(alpha)
                        }
                    }
                }
            }
        }
        return DecodedImage(width: targetWidth, height: targetHeight, validPixels: output)
    }

    /// The source pixels one target pixel covers along one axis, with the
    /// fraction of the target pixel each one makes up (they sum to 1).
    private struct Span {
        var start: Int
        var weights: [Double]
    }

    private static func spans(from sourceCount: Int, to targetCount: Int) -> [Span] {
        let scale = Double(sourceCount) / Double(targetCount)
        return (0..<targetCount).map { index in
            let start = Double(index) * scale
            let end = min(Double(index + 1) * scale, Double(sourceCount))
            let first = min(Int(start), sourceCount - 1)
            let last = max(first, min(Int(end.rounded(.up)) - 1, sourceCount - 1))
            let weights = (first...last).map { source in
                (min(end, Double(source + 1)) - max(start, Double(source))) / scale
            }
            return Span(start: first, weights: weights)
        }
    }

    private static func channel(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
