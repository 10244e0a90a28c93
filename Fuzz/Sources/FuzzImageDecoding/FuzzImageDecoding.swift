import Foundation
import FuzzSupport

@testable import BaselineImages

// Properties: a decoded image is never over the pixel limit, its pixels
// are exactly width × height × 4 bytes, and turning a JPEG upright by its
// EXIF orientation keeps its size or swaps width and height. Bad bytes
// throw an ImageError; nothing else escapes.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    // Small limits keep each run fast and put the limit check to work.
    let limits = ImageDecodingLimits(maximumPixelCount: 1 << input.number(in: 0...16))
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
