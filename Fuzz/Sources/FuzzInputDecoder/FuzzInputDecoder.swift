import FuzzSupport

// Property: the terminal's bytes give the same events however the reads cut
// them (an escape sequence or a UTF-8 character split across reads is kept
// until its rest comes), once what is pending is flushed at the end.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let maximumPaste = input.number(in: 1...64)
    let cuts = [Int(input.byte()), Int(input.byte()), Int(input.byte())]
    let bytes = input.rest()
    let cutPoints = cuts.map { $0 % (bytes.count + 1) }.sorted()
    var whole = InputDecoder(maximumPasteBytes: maximumPaste)
    var wholeEvents = whole.decode(bytes)
    wholeEvents += whole.flush() + whole.endPaste()
    var cut = InputDecoder(maximumPasteBytes: maximumPaste)
    var cutEvents: [InputEvent] = []
    var start = 0
    for point in cutPoints + [bytes.count] {
        cutEvents += cut.decode(bytes[start..<point])
        start = point
    }
    cutEvents += cut.flush() + cut.endPaste()
    require(wholeEvents == cutEvents, "cut at \(cutPoints): \(cutEvents); whole: \(wholeEvents)")
    for case .paste(let text) in wholeEvents {
        require(text.utf8.count <= maximumPaste, "a paste of \(text.utf8.count) bytes, over \(maximumPaste)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzInputDecoder_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
