#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The Apple-platform decoding behind ``PNGDecoder`` and ``JPEGDecoder``.
enum ImageIODecoding {
    /// The image, or with `maximumPixelSize` a thumbnail that fits it, made by
    /// ImageIO's thumbnail API, which decodes a JPEG at a reduced scale
    /// instead of whole (unverified here: Linux CI cannot compile this file).
    static func decode(_ data: Data, limits: ImageDecodingLimits, maximumPixelSize: Int? = nil) throws -> DecodedImage {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil),
            CGImageSourceGetCount(source) > 0
        else {
            throw ImageError.corruptImage("ImageIO could not read the image")
        }
        // A truncated file is "incomplete" here; ImageIO would decode it partially.
        guard CGImageSourceGetStatusAtIndex(source, 0) == .statusComplete else {
            throw ImageError.corruptImage("The image data is incomplete or malformed")
        }
        // The size from the header: checked before any pixel of a whole image
        // is decoded; a thumbnail is checked at its own size, as on Linux.
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
            let storedWidth = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
            let storedHeight = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue
        else {
            throw ImageError.corruptImage("The image has no readable size")
        }
        let image: CGImage
        if let maximumPixelSize {
            // Orientation stays as stored: the caller applies it, on every platform alike.
            let options: [CFString: Any] = [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceThumbnailMaxPixelSize: maximumPixelSize,
                kCGImageSourceCreateThumbnailWithTransform: false,
                kCGImageSourceShouldCacheImmediately: true,
            ]
            guard let thumbnail = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
                throw ImageError.corruptImage("ImageIO could not decode the image")
            }
            try limits.check(width: thumbnail.width, height: thumbnail.height)
            image = thumbnail
        } else {
            try limits.check(width: storedWidth, height: storedHeight)
            guard let whole = CGImageSourceCreateImageAtIndex(source, 0, nil),
                whole.width == storedWidth, whole.height == storedHeight
            else {
                throw ImageError.corruptImage("ImageIO could not decode the image")
            }
            image = whole
        }
        let width = image.width
        let height = image.height
        let hasAlpha = ![.none, .noneSkipFirst, .noneSkipLast].contains(image.alphaInfo)
        let pixels: [UInt8]
        if let grey = image.colorSpace, grey.model == .monochrome, !hasAlpha {
            // Grey without alpha: read the grey values in the image's own
            // space (no colour conversion) and repeat them, as libjpeg does.
            let values = try draw(image, bytesPerPixel: 1, space: grey, bitmapInfo: CGImageAlphaInfo.none.rawValue)
            var expanded = [UInt8](repeating: 255, count: width * height * 4)
            for (index, value) in values.enumerated() {
                expanded[index * 4] = value
                expanded[index * 4 + 1] = value
                expanded[index * 4 + 2] = value
            }
            pixels = expanded
        } else {
            // RGB (also behind a palette) is drawn in its own space, so its
            // values come through unconverted; anything else (CMYK, Lab, grey
            // with alpha) is converted to sRGB by ColorSync, and so differs
            // from libjpeg's plain CMYK arithmetic on Linux.
            let own = image.colorSpace.flatMap { $0.model == .indexed ? $0.baseColorSpace : $0 }
            guard let space = own.flatMap({ $0.model == .rgb ? $0 : nil }) ?? CGColorSpace(name: CGColorSpace.sRGB)
            else {
                throw ImageError.corruptImage("No colour space to decode the image into")
            }
            // Bitmap contexts only draw premultiplied RGBA: draw, then undo
            // it (only pixels with partial alpha change).
            var rgba = try draw(
                image,
                bytesPerPixel: 4,
                space: space,
                bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
            )
            if hasAlpha {
                for offset in stride(from: 0, to: rgba.count, by: 4) {
                    let alpha = Int(rgba[offset + 3])
                    guard alpha > 0, alpha < 255 else { continue }
                    for channel in offset..<offset + 3 {
                        rgba[channel] = UInt8(min(255, (Int(rgba[channel]) * 255 + alpha / 2) / alpha))
                    }
                }
            }
            pixels = rgba
        }
        return DecodedImage(width: width, height: height, validPixels: pixels)
    }

    /// `image` drawn into a fresh bitmap of 8-bit components.
    private static func draw(
        _ image: CGImage,
        bytesPerPixel: Int,
        space: CGColorSpace,
        bitmapInfo: UInt32
    ) throws -> [UInt8] {
        let bytesPerRow = image.width * bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * image.height)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard
                let context = CGContext(
                    data: buffer.baseAddress,
                    width: image.width,
                    height: image.height,
                    bitsPerComponent: 8,
                    bytesPerRow: bytesPerRow,
                    space: space,
                    bitmapInfo: bitmapInfo
                )
            else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: image.width, height: image.height))
            return true
        }
        guard drawn else { throw ImageError.corruptImage("Could not create a bitmap context") }
        return pixels
    }
}
#endif
