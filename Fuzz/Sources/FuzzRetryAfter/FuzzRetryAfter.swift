import Foundation
import FuzzSupport

@testable import BaselineHTTP

// Properties: a wait is never negative; delay-seconds give exactly their
// number (or "a very long time"); a date gives the time until it from now.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    guard let delay = RetryAfter.delay(text, now: now) else { return 0 }
    require(delay >= .zero, "\(text) asks for a negative wait \(delay)")
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty, trimmed.allSatisfy({ ("0"..."9").contains($0) }) {
        require(delay == .seconds(Int(trimmed) ?? .max), "\(text) gives \(delay)")
    } else if let date = HTTPDate.parse(trimmed) {
        require(delay == .seconds(max(0, date.timeIntervalSince(now))), "\(text) gives \(delay)")
    } else {
        require(false, "\(text) is neither form but gives \(delay)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzRetryAfter_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
