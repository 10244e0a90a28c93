import Foundation
import FuzzSupport

@testable import BaselineImages

// Properties: the reader stops at the orientation it finds, so bytes after
// the file do not change it; the fuzzer's bytes as the TIFF block of an
// APP1 Exif segment of a well-formed JPEG start reach the directory parser
// directly.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let bytes = input.rest()
    let raw = Data(bytes)
    if let orientation = ImageOrientation(jpeg: raw) {
        require(
            ImageOrientation(jpeg: raw + [0xFF, 0xD9, 0x00]) == orientation,
            "bytes after the file changed the orientation"
        )
    }
    // Segment lengths count two bytes of their own and hold at most 65,535.
    let tiff = bytes.prefix(65_535 - 8)
    let length = tiff.count + 8
    var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
    jpeg += Array("Exif".utf8) + [0, 0] + tiff + [0xFF, 0xD9]
    let wrapped = ImageOrientation(jpeg: Data(jpeg))
    if let wrapped {
        require((1...8).contains(wrapped.rawValue), "orientation \(wrapped.rawValue)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzEXIFOrientation_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
