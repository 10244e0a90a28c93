import CImageEncoding

/// Writes bitmaps as PNG (libpng) and JPEG (libjpeg-turbo) files.
///
/// The libraries' fatal errors, which they raise by `longjmp`, are caught in
/// the C target `CImageEncoding` and come back as ``Failure``. With sizes
/// ``Bitmap`` already bounds, the only one left is running out of memory.
enum ImageEncoder {
    /// What the library said when it could not write the file.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var message: String
        var description: String { "image encoding failed: \(message)" }
    }

    /// How much colour detail a JPEG keeps.
    enum ChromaSubsampling: Sendable {
        /// Colour at half the resolution both ways (4:2:0), as cameras do:
        /// smaller files, and the eye does not miss it in photographs.
        case half
        /// Colour at full resolution (4:4:4).
        case none
    }

    /// zlib's default level: most of level 9's gain at a fraction of its time.
    static let defaultPNGCompression = 6

    /// A PNG of `bitmap` (RGB or RGBA, 8 bits), its rows filtered adaptively
    /// and deflated at zlib `compressionLevel` (0 stores them as they are).
    static func png(_ bitmap: Bitmap, compressionLevel: Int = defaultPNGCompression) throws(Failure) -> [UInt8] {
        try encode(bitmap) { pixels, file, length, message, capacity in
            spacephotos_encode_png(
                pixels,
                Int32(bitmap.width),
                Int32(bitmap.height),
                Int32(bitmap.format.bytesPerPixel),
                Int32(min(max(compressionLevel, 0), 9)),
                file,
                length,
                message,
                capacity
            )
        }
    }

    /// A baseline JFIF file of `bitmap` at `quality` (1–100, clamped); an
    /// RGBA bitmap loses its alpha.
    static func jpeg(_ bitmap: Bitmap, quality: Int = 85, chroma: ChromaSubsampling = .half) throws(Failure) -> [UInt8]
    {
        try encode(bitmap) { pixels, file, length, message, capacity in
            spacephotos_encode_jpeg(
                pixels,
                Int32(bitmap.width),
                Int32(bitmap.height),
                Int32(bitmap.format.bytesPerPixel),
                Int32(min(max(quality, 1), 100)),
                chroma == .half ? 1 : 0,
                file,
                length,
                message,
                capacity
            )
        }
    }

    private typealias Encode = (
        _ pixels: UnsafePointer<UInt8>?, _ file: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        _ length: UnsafeMutablePointer<Int>, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
    ) -> Int32

    /// Runs one C encoder on the bitmap's pixels and copies its file out.
    private static func encode(_ bitmap: Bitmap, _ body: Encode) throws(Failure) -> [UInt8] {
        var file: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bitmap.withPixelBytes { pixels in
            message.withUnsafeMutableBufferPointer { text in
                body(pixels.baseAddress, &file, &length, text.baseAddress, text.count)
            }
        }
        defer { spacephotos_free(file) }
        guard status == 0, let file else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Failure(message: text.isEmpty ? "unknown error" : text)
        }
        return Array(UnsafeBufferPointer(start: file, count: length))
    }
}
