import Foundation
import FuzzSupport

// Properties: parsed credentials encode back to a header that parses to the
// same credentials; the id never holds a colon.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    guard let credentials = BasicCredentials(authorization: text) else { return 0 }
    require(!credentials.id.contains(":"), "id \(credentials.id) holds a colon")
    let encoded = "Basic " + Data("\(credentials.id):\(credentials.password)".utf8).base64EncodedString()
    if encoded.utf8.count <= BasicCredentials.maximumHeaderLength {
        require(
            BasicCredentials(authorization: encoded) == credentials,
            "\(text) encodes back as \(encoded), which parses differently"
        )
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzBasicCredentials_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
