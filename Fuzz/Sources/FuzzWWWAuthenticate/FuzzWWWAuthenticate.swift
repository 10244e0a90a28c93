import FuzzSupport

@testable import BaselineHTTP

// Properties: field values are independent (several values offer Basic when
// one of them does, whatever quotes another leaves open); a value that
// starts with the Basic challenge offers it.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let split = input.byte()
    let text = input.restAsText()
    let cut = text.index(text.startIndex, offsetBy: Int(split) % (text.count + 1))
    let (first, second) = (String(text[..<cut]), String(text[cut...]))
    let separate = BasicAuthentication.offersBasic([first, second])
    let expected = BasicAuthentication.offersBasic([first]) || BasicAuthentication.offersBasic([second])
    require(separate == expected, "[\(first), \(second)]: \(separate), one by one: \(expected)")
    require(
        BasicAuthentication.offersBasic([text, "Basic realm=\"x\""]),
        "a second value offering Basic was missed after \(text)"
    )
    require(BasicAuthentication.offersBasic(["Basic, " + text]), "Basic first, then \(text), was missed")
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzWWWAuthenticate_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
