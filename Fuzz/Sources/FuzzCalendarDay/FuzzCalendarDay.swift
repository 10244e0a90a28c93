import FuzzSupport

// Properties: a day that parses prints back to exactly its text; every day
// of years 0000-9999 prints as text that parses back to it.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let first = CalendarDay(parsing: "0000-01-01")?.number ?? 0
    let last = CalendarDay(parsing: "9999-12-31")?.number ?? 0
    let number = first + (Int(input.byte()) << 16 | Int(input.byte()) << 8 | Int(input.byte())) % (last - first + 1)
    let day = CalendarDay(number: number)
    require(
        CalendarDay(parsing: day.description) == day,
        "day \(number) prints as \(day.description), which parses differently"
    )
    let text = input.restAsText()
    if let parsed = CalendarDay(parsing: text) {
        require(parsed.description == text, "\(text) prints as \(parsed.description)")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzCalendarDay_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
