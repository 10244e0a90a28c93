/// How an image's stored pixels are turned to show it upright: the eight
/// values of the EXIF and TIFF `Orientation` tag, named as
/// `CGImagePropertyOrientation` names them.
///
/// Cameras and phones store a photo as the sensor read it and record how it
/// was held in this tag; viewers turn it on display. ``JPEGDecoder`` applies
/// it by default, so a JPEG decodes upright (a PNG's rare `eXIf` chunk is
/// not read).
///
/// ```swift
/// let upright = stored.oriented(.right)     // turned a quarter clockwise: width and height swap
/// ```
public enum ImageOrientation: UInt8, Sendable, CaseIterable {
    /// As stored (EXIF 1).
    case up = 1
    /// Mirrored left to right (EXIF 2).
    case upMirrored = 2
    /// Turned half a turn (EXIF 3).
    case down = 3
    /// Mirrored top to bottom (EXIF 4).
    case downMirrored = 4
    /// Mirrored across the diagonal from the top left (EXIF 5).
    case leftMirrored = 5
    /// Shown turned a quarter turn clockwise (EXIF 6: a phone held upright).
    case right = 6
    /// Mirrored across the diagonal from the top right (EXIF 7).
    case rightMirrored = 7
    /// Shown turned a quarter turn anticlockwise (EXIF 8).
    case left = 8

    /// Whether showing the image upright swaps its width and height.
    public var swapsDimensions: Bool {
        rawValue >= 5
    }
}

extension DecodedImage {
    /// The image as it is shown when stored with `orientation`: upright.
    ///
    /// Each output pixel is copied from one source pixel, so colours are
    /// kept exactly; `.up` returns the image itself. The turned copy is a
    /// second buffer as large as the first while it is made.
    public func oriented(_ orientation: ImageOrientation) -> DecodedImage {
        guard orientation != .up, width > 0, height > 0 else { return self }
        let (w, h) = (width, height)
        // Every orientation maps output (x, y) to source pixel
        // `origin + x * stepX + y * stepY`: one affine walk, no per-pixel branch.
        let (origin, stepX, stepY): (Int, Int, Int) =
            switch orientation {
            case .up: (0, 1, w)
            case .upMirrored: (w - 1, -1, w)
            case .down: ((h - 1) * w + w - 1, -1, -w)
            case .downMirrored: ((h - 1) * w, 1, -w)
            case .leftMirrored: (0, w, 1)
            case .right: ((h - 1) * w, -w, 1)
            case .rightMirrored: ((h - 1) * w + w - 1, -w, -1)
            case .left: (w - 1, w, -1)
            }
        let (outputWidth, outputHeight) = orientation.swapsDimensions ? (h, w) : (w, h)
        let output = [UInt8](unsafeUninitializedCapacity: pixels.count) { target, initialized in
            pixels.withUnsafeBytes { source in
                let target = UnsafeMutableRawBufferPointer(target)
                // Written in order; a quarter turn reads down the source's
                // columns, whose lines for one output row (a few hundred KiB
                // at most) stay in the cache for the next. Tiling measured slower.
                var written = 0
                for y in 0..<outputHeight {
                    var index = origin + y * stepY
                    for _ in 0..<outputWidth {
                        target.storeBytes(
                            of: source.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self),
                            toByteOffset: written,
                            as: UInt32.self
                        )
                        written += 4
                        index += stepX
                    }
                }
            }
            initialized = pixels.count
        }
        return DecodedImage(width: outputWidth, height: outputHeight, validPixels: output)
    }
}
