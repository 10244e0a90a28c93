import Foundation

#if canImport(ImageIO)
// ImageIO, in ImageIODecoding.swift.
#elseif canImport(CPNG)
import CPNG
#endif

/// Decodes PNG: with ImageIO on Apple platforms, with the system's libpng
/// elsewhere. Every PNG colour type and bit depth comes out as 8-bit RGBA
/// (16-bit channels are reduced to 8 bits; palette and grayscale images are
/// expanded; `tRNS` transparency becomes alpha).
public struct PNGDecoder: ImageDecoding {
    /// Creates a decoder.
    public init() {}

    /// Whether the bytes start with the PNG signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat(sniffing: data) == .png
    }

    /// Decodes the PNG to 8-bit RGBA.
    public func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        guard canDecode(data) else { throw ImageError.unsupportedImage(mediaType: nil) }
        // The size is at a fixed place in the mandatory first chunk: check it
        // before the library sees the file.
        if let (width, height) = Self.headerSize(of: data) {
            try limits.check(width: width, height: height)
        } else {
            throw ImageError.corruptImage("The PNG has no valid IHDR chunk")
        }
        #if canImport(ImageIO)
        return try ImageIODecoding.decode(data, limits: limits)
        #elseif canImport(CPNG)
        return try Self.decodeWithLibPNG(data, limits: limits)
        #else
        throw ImageError.unsupportedImage(mediaType: ImageFormat.png.mediaType)
        #endif
    }

    /// The width and height in the IHDR chunk, which must come first.
    static func headerSize(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return (bigEndian(16), bigEndian(20))
    }

    #if !canImport(ImageIO) && canImport(CPNG)
    /// libpng's simplified API: it reports errors through the `png_image`
    /// (no longjmp reaches Swift) and converts every format to RGBA.
    private static func decodeWithLibPNG(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        var image = png_image()
        image.version = cpng_image_version
        defer { png_image_free(&image) }
        // libpng reads from the buffer until png_image_finish_read: both calls
        // stay inside the one closure that keeps it valid.
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> DecodedImage in
            guard png_image_begin_read_from_memory(&image, buffer.baseAddress, buffer.count) != 0 else {
                throw ImageError.corruptImage(message(of: &image))
            }
            let width = Int(image.width)
            let height = Int(image.height)
            try limits.check(width: width, height: height)
            image.format = cpng_format_rgba
            // Without this, libpng takes 16-bit channels with no gAMA or sRGB
            // chunk as linear light and brightens them; browsers and ImageIO
            // read them as sRGB, like 8-bit ones.
            image.flags |= cpng_flag_16bit_srgb
            // Uninitialised: libpng writes every byte of a successful read.
            var finished: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
                // Row stride 0: packed rows, top first.
                finished = png_image_finish_read(&image, nil, buffer.baseAddress, 0, nil)
                initialized = finished != 0 ? buffer.count : 0
            }
            guard finished != 0 else { throw ImageError.corruptImage(message(of: &image)) }
            return DecodedImage(width: width, height: height, validPixels: pixels)
        }
    }

    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng could not read the PNG" : "libpng: \(text)"
    }
    #endif
}
