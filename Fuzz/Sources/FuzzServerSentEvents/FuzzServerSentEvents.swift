import BaselineHTTP
import Foundation
import FuzzSupport

// Properties: the same bytes cut into chunks anywhere give the same events;
// an event's data lines, id and type are all text of the input, the type
// never empty ("message" when the field is); a retry time is never negative.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let cuts = [Int(input.byte()), Int(input.byte())]
    let bytes = input.rest()
    let cutPoints = cuts.map { bytes.isEmpty ? 0 : $0 % (bytes.count + 1) }

    // One hop to the concurrency runtime for both parses.
    let both = synchronously {
        (
            await outcome { try await collect(Chunks([Data(bytes)]).serverSentEvents()) },
            await outcome { try await collect(Chunks(bytes, cutAt: cutPoints).serverSentEvents()) }
        )
    }
    guard case .success(let (whole, cut)) = both,
        case .success(let events) = whole, case .success(let cutEvents) = cut
    else {
        require(false, "parsing failed: \(both)")
        return 0
    }
    require(events == cutEvents, "cut at \(cutPoints): \(cutEvents); whole: \(events)")
    let text = Array(String(decoding: bytes, as: UTF8.self).utf8)
    for event in events {
        // Split at the scalar: as a Character, "\r\n" is not "\n".
        for line in event.data.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(String.UnicodeScalarView(line))
            require(contains(text, Array(line.utf8)), "data \(line.debugDescription) is not in the input")
            require(!line.contains("\r"), "data \(line.debugDescription) holds a line end")
        }
        require(
            contains(text, Array(event.event.utf8)) || event.event == "message",
            "event type \(event.event) is not in the input"
        )
        require(!event.event.isEmpty, "an event of type \"\" was dispatched")
        if let id = event.id { require(contains(text, Array(id.utf8)), "id \(id) is not in the input") }
        if let retry = event.retry { require(retry >= .zero, "negative retry \(retry)") }
    }
    return 0
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty else { return true }
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
    var result: [S.Element] = []
    for try await element in sequence { result.append(element) }
    return result
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzServerSentEvents_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
