import Foundation
import FuzzSupport

@testable import BaselineImages

// Properties: a decoded image is never over the pixel limit, its pixels
// are exactly width × height × 4 bytes, and turning a JPEG upright by its
// EXIF orientation keeps its size or swaps width and height. Bad bytes
// throw an ImageError; nothing else escapes. The bytes cut short (where the
// first byte says) throw an ImageError or decode to the same size: a
// progressive JPEG cut after its first scan is the whole image, coarser.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    // Small limits keep each run fast and put the limit check to work; the
    // rest of the byte, 0–15, places a cut in sixteenths of the bytes (0: none).
    let steering = Int(input.byte())
    let limits = ImageDecodingLimits(maximumPixelCount: 1 << (steering % 17))
    let cutSixteenths = steering / 17
    let bytes = Data(input.rest())
    let decoders: [any ImageDecoding] = [PNGDecoder(), JPEGDecoder()]
    let image: DecodedImage
    do {
        image = try decoders.decode(bytes, limits: limits)
    } catch is ImageError {
        return 0
    } catch {
        require(false, "not an ImageError: \(error)")
        return 0
    }
    require(image.width > 0 && image.height > 0, "size \(image.width)×\(image.height)")
    require(
        image.width * image.height <= limits.maximumPixelCount,
        "\(image.width)×\(image.height) is over \(limits.maximumPixelCount) pixels"
    )
    require(
        image.pixels.count == image.width * image.height * 4,
        "\(image.pixels.count) bytes for \(image.width)×\(image.height)"
    )
    if cutSixteenths > 0 {
        let prefix = bytes.prefix(bytes.count * cutSixteenths / 16)
        do {
            let partial = try decoders.decode(prefix, limits: limits)
            require(
                (partial.width, partial.height) == (image.width, image.height),
                "\(prefix.count) of \(bytes.count) bytes decode to \(partial.width)×\(partial.height), all to \(image.width)×\(image.height)"
            )
        } catch is ImageError {
            // Cut before its first whole scan, or in a PNG's image data.
        } catch {
            require(false, "not an ImageError: \(error)")
        }
    }
    if JPEGDecoder().canDecode(bytes),
        let stored = try? JPEGDecoder(appliesOrientation: false).decode(bytes, limits: limits)
    {
        let same = (stored.width, stored.height) == (image.width, image.height)
        let swapped = (stored.width, stored.height) == (image.height, image.width)
        require(same || swapped, "upright \(image.width)×\(image.height), stored \(stored.width)×\(stored.height)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzImageDecoding_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
