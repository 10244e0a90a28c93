import FuzzSupport

@testable import BaselineHTTP

// Properties: a parsed range prints back to itself (its description parses
// to an equal range); a concrete type matches itself, and `*/*` matches it.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    guard let range = MediaTypeRange(text) else { return 0 }
    require(
        MediaTypeRange(range.description) == range,
        "\(text) prints as \(range.description), which parses differently"
    )
    require(
        range.type == range.type.lowercased() && range.subtype == range.subtype.lowercased(),
        "\(text) kept upper case"
    )
    if range.type != "*", range.subtype != "*" {
        require(range.matches(text), "\(text) does not match itself")
        require(MediaTypeRange.any.matches(text), "*/* does not match \(text)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzMediaTypeRange_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
