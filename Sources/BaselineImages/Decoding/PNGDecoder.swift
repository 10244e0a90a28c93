import Foundation

#if canImport(ImageIO)
// ImageIO, in ImageIODecoding.swift.
#elseif canImport(CPNG)
import CPNG
import CPNGShim
#endif

/// Decodes PNG: with ImageIO on Apple platforms, with the system's libpng
/// elsewhere. Every PNG colour type and bit depth, interlaced or not, comes
/// out as 8-bit RGBA (16-bit channels are reduced to 8 bits; palette and
/// grayscale images are expanded; `tRNS` transparency becomes alpha).
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
        guard let header = Header(data) else {
            throw ImageError.corruptImage("The PNG has no valid IHDR chunk")
        }
        try limits.check(width: header.width, height: header.height)
        #if canImport(ImageIO)
        return try ImageIODecoding.decode(data, limits: limits)
        #elseif canImport(CPNG)
        // libpng's simplified API decodes a 16-bit interlaced file wrong (it
        // combines the Adam7 passes of every other row with stale data when
        // it scales 16-bit channels to 8); its row API, which the simplified
        // API is built on, does not. Everything else keeps the simplified
        // API: it is as fast, and the most used and tested way into libpng.
        if header.bitDepth == 16, header.isInterlaced {
            return try Self.decodeRowsWithLibPNG(data, header: header)
        }
        return try Self.decodeWithLibPNG(data, limits: limits)
        #else
        throw ImageError.unsupportedImage(mediaType: ImageFormat.png.mediaType)
        #endif
    }

    /// The fields of the IHDR chunk that choose how the file is decoded.
    struct Header {
        var width: Int
        var height: Int
        var bitDepth: UInt8
        /// Adam7 (interlace method 1); anything but 0 or 1 libpng rejects.
        var isInterlaced: Bool

        /// The IHDR chunk, which must come first, or nil when it does not.
        init?(_ data: Data) {
            let bytes = [UInt8](data.prefix(29))
            guard bytes.count == 29, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
            // Four bytes fit an Int on 64-bit platforms; on 32-bit ones a
            // value over 2^31 - 1 (which PNG forbids) comes out negative and
            // fails the size check.
            func bigEndian(_ offset: Int) -> Int {
                bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            }
            width = bigEndian(16)
            height = bigEndian(20)
            bitDepth = bytes[24]
            isInterlaced = bytes[28] == 1
        }
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
            // libpng refuses sides over 2^31 - 1, so these fit any Int; the
            // limits were checked on the IHDR, and are again on libpng's word.
            guard let width = Int(exactly: image.width), let height = Int(exactly: image.height) else {
                throw ImageError.corruptImage("Invalid PNG size \(image.width)×\(image.height)")
            }
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

    /// libpng's row API, through a C shim that holds libpng's `setjmp`: the
    /// same transformations as the simplified API, so the same pixels.
    private static func decodeRowsWithLibPNG(_ data: Data, header: Header) throws -> DecodedImage {
        // The header's size passed the limits, so it fits a UInt32 and its
        // pixels' byte count an Int.
        guard let width = UInt32(exactly: header.width), let height = UInt32(exactly: header.height),
            let byteCount = DecodedImage.byteCount(width: header.width, height: header.height)
        else {
            throw ImageError.corruptImage("Invalid PNG size \(header.width)×\(header.height)")
        }
        var message = [CChar](repeating: 0, count: 256)
        var status: Int32 = 1
        let pixels = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [UInt8] in
            // Uninitialised: libpng writes every byte of a successful read.
            [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
                status = baseline_png_decode_rgba_rows(
                    buffer.bindMemory(to: UInt8.self).baseAddress,
                    buffer.count,
                    output.baseAddress,
                    output.count,
                    width,
                    height,
                    &message,
                    message.count
                )
                initialized = status == 0 ? output.count : 0
            }
        }
        guard status == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError.corruptImage(text.isEmpty ? "libpng could not read the PNG" : "libpng: \(text)")
        }
        return DecodedImage(width: header.width, height: header.height, validPixels: pixels)
    }

    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng could not read the PNG" : "libpng: \(text)"
    }
    #endif
}
