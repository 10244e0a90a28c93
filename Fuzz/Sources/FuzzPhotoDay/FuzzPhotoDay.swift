import Foundation
import FuzzSupport

// Property: a day that parses prints back to exactly its text, at midnight UTC.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    guard let date = PhotoDay.date(from: text) else { return 0 }
    require(PhotoDay.string(from: date) == text, "\(text) prints as \(PhotoDay.string(from: date))")
    require(
        date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0,
        "\(text) is not at midnight UTC: \(date)"
    )
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzPhotoDay_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
