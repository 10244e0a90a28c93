import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// Properties: max-age is never negative nor above 2^31; each field is read on its own (a
// quote one leaves open does not hide the directives of the next), so a
// field added after it adds its directive and keeps the smaller max-age.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let extraAge = input.number(in: 0...255)
    let text = input.restAsText()
    guard let name = HTTPField.Name("Cache-Control") else { return 0 }
    // HTTPFields keeps only valid field values; others are not headers.
    var fields = HTTPFields()
    fields.append(HTTPField(name: name, value: text))
    let alone = CacheControl(fields)
    if let age = alone.maxAge { require((0...DeltaSeconds.maximum).contains(age), "\(text): max-age \(age)") }
    fields.append(HTTPField(name: name, value: "no-store, no-cache, must-revalidate, max-age=\(extraAge)"))
    let both = CacheControl(fields)
    require(both.noStore && both.noCache && both.mustRevalidate, "\(text) hid the next field's directives")
    require(
        both.maxAge == min(alone.maxAge ?? .max, extraAge),
        "\(text) then max-age=\(extraAge) gives \(String(describing: both.maxAge))"
    )
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzCacheControl_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
