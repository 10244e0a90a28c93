#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The Apple-platform decoding behind ``PNGDecoder`` and ``JPEGDecoder``.
enum ImageIODecoding {
    static func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil),
              CGImageSourceGetCount(source) > 0 else {
            throw ImageError.corruptImage("ImageIO could not read the image")
        }
        // A truncated file is "incomplete" here; ImageIO would decode it partially.
        guard CGImageSourceGetStatusAtIndex(source, 0) == .statusComplete else {
            throw ImageError.corruptImage("The image data is incomplete or malformed")
        }
        // The size from the header, checked before any pixel is decoded.
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = (properties[kCGImagePropertyPixelWidth] as? NSNumber)?.intValue,
              let height = (properties[kCGImagePropertyPixelHeight] as? NSNumber)?.intValue else {
            throw ImageError.corruptImage("The image has no readable size")
        }
        try limits.check(width: width, height: height)
        guard let image = CGImageSourceCreateImageAtIndex(source, 0, nil),
              image.width == width, image.height == height,
              let colorSpace = CGColorSpace(name: CGColorSpace.sRGB) else {
            throw ImageError.corruptImage("ImageIO could not decode the image")
        }

        // Bitmap contexts only draw premultiplied RGBA: draw, then undo it.
        let bytesPerRow = width * 4
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(
                data: buffer.baseAddress, width: width, height: height,
                bitsPerComponent: 8, bytesPerRow: bytesPerRow, space: colorSpace,
                bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
            ) else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { throw ImageError.corruptImage("Could not create a bitmap context") }
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(pixels[offset + 3])
            guard alpha > 0, alpha < 255 else { continue }
            for channel in offset..<offset + 3 {
                pixels[channel] = UInt8(min(255, (Int(pixels[channel]) * 255 + alpha / 2) / alpha))
            }
        }
        return DecodedImage(width: width, height: height, validPixels: pixels)
    }
}
#endif
