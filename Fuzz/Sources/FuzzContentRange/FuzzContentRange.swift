import FuzzSupport

@testable import BaselineHTTP

// Properties: a parsed range is consistent (0 <= first <= last < total, or
// no total; its length and end do not overflow); it prints as
// `bytes first-last/total` that parses to itself; its text is the unit
// "bytes" in any case, a space, and only digits, '-', '/' and '*'. With the
// first byte odd, the input is three numbers instead, printed as a header:
// it parses exactly when they make a consistent range.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    if input.byte() % 2 == 1 {
        checkPrinted(&input)
        return 0
    }
    let text = input.restAsText()
    guard let range = ContentRange(text) else { return 0 }
    require(0 <= range.first && range.first <= range.last && range.last < .max, "\(text): \(range)")
    if let total = range.total { require(range.last < total, "\(text): \(range)") }
    require(range.length >= 1 && range.length == range.last - range.first + 1, "\(text): length \(range.length)")
    require(range.end == range.last + 1, "\(text): end \(range.end)")
    require(ContentRange(printed(range)) == range, "\(printed(range)) does not parse to \(range)")
    let spec = text.utf8.dropFirst("bytes ".count)
    require(
        text.utf8.prefix(6).map { $0 | 0x20 } == Array("bytes ".utf8)
            && spec.allSatisfy {
                (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "*")
            },
        "\(text.debugDescription) parsed to \(range)"
    )
    return 0
}

/// `range` as a server writes it.
func printed(_ range: ContentRange) -> String {
    "bytes \(range.first)-\(range.last)/\(range.total.map(String.init) ?? "*")"
}

/// Three numbers from the input (each from 8 bytes, or small from 1), the
/// header they make, and whether it must parse.
func checkPrinted(_ input: inout FuzzInput) {
    func number() -> Int64 {
        guard input.byte() % 2 == 0 else { return Int64(input.byte()) }
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(input.byte()) }
        return Int64(bitPattern: value)
    }
    let (first, last, total) = (number(), number(), number())
    let unknownTotal = input.byte() % 4 == 0
    let header = "bytes \(first)-\(last)/\(unknownTotal ? "*" : String(total))"
    let consistent = 0 <= first && first <= last && last < .max && (unknownTotal || last < total)
    let range = ContentRange(header)
    require((range != nil) == consistent, "\(header) parsed to \(String(describing: range))")
    if let range {
        require(
            range.first == first && range.last == last && range.total == (unknownTotal ? nil : total),
            "\(header): \(range)"
        )
    }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzContentRange_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
