import Foundation
import FuzzSupport

@testable import BaselineHTTP

// Properties of Server-Sent Events read whole, with a line limit and an
// event limit, the bytes cut into chunks anywhere:
// - no event's data is longer than the event limit, and after each event
//   the parser holds at most the line limit plus one chunk of bytes;
// - the events are those of the same bytes read without limits, up to a
//   failure, and the parse fails exactly when a line or the data an event
//   accumulates (dispatched or not) is over its limit, as a model of the
//   standard's parsing, written here, counts them.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let lineLimit = input.number(in: 0...48)
    let eventLimit = input.number(in: 0...96)
    let cuts = (0..<4).map { _ in Int(input.byte()) }
    let bytes = input.rest()
    let chunks = Chunks(bytes, cutAt: cuts.map { bytes.isEmpty ? 0 : $0 % (bytes.count + 1) })
    let largestChunk = chunks.chunks.map(\.count).max() ?? 0

    let outcomes = synchronously {
        (
            await outcome { try await collect(Chunks([Data(bytes)]).serverSentEvents()) },
            await limited(chunks, lineLimit: lineLimit, eventLimit: eventLimit, largestChunk: largestChunk)
        )
    }
    guard case .success(let (unlimited, (events, failure))) = outcomes, case .success(let all) = unlimited else {
        require(false, "an unlimited parse failed: \(outcomes)")
        return 0
    }
    require(all.starts(with: events), "limited events \(events) are not a prefix of \(all)")
    for event in events {
        require(event.data.utf8.count <= eventLimit, "an event of \(event.data.utf8.count) bytes over \(eventLimit)")
    }
    let (longestLine, mostData) = model(bytes)
    let over = longestLine > lineLimit || mostData > eventLimit
    if let failure {
        require(over, "failed with \(failure), but lines and events fit (\(longestLine), \(mostData))")
        guard case .responseTooLarge(let limit) = failure as? HTTPClientError,
            limit == lineLimit || limit == eventLimit
        else {
            require(false, "failed with \(failure), not a limit")
            return 0
        }
    } else {
        require(!over, "a line of \(longestLine) or data of \(mostData) passed limits \(lineLimit), \(eventLimit)")
        require(events == all, "limited events \(events) differ from \(all)")
    }
    return 0
}

/// The events read with limits, up to the failure if one came; checks the
/// parser's buffer after each event.
func limited(
    _ chunks: Chunks,
    lineLimit: Int,
    eventLimit: Int,
    largestChunk: Int
) async -> ([ServerSentEvent], (any Error)?) {
    var iterator = chunks.serverSentEvents(maximumLineLength: lineLimit, maximumEventLength: eventLimit)
        .makeAsyncIterator()
    var events: [ServerSentEvent] = []
    do {
        while let event = try await iterator.next() {
            events.append(event)
            let held = iterator.lines.buffer.count
            require(held <= lineLimit + largestChunk, "\(held) bytes held, limit \(lineLimit) + chunk \(largestChunk)")
        }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

/// The longest line in bytes, and the most data an event accumulated, in
/// UTF-8 bytes, as the WHATWG HTML standard's "interpreting an event
/// stream" reads the bytes: lines end at CRLF, LF or CR; a blank line ends
/// an event; a line starting with ":" is a comment; otherwise the field
/// name runs to the first ":", and one space after it is dropped; each
/// "data" value is appended to the data buffer with a LF.
func model(_ bytes: [UInt8]) -> (longestLine: Int, mostData: Int) {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index < bytes.count {
        if bytes[index] == 0x0A || bytes[index] == 0x0D {
            lines.append(bytes[start..<index])
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
            start = index + 1
        }
        index += 1
    }
    if start < bytes.count { lines.append(bytes[start...]) }

    var longestLine = 0
    var mostData = 0
    var buffered: Int?  // the data so far, without the last LF; nil before the first data line
    for (number, bytes) in lines.enumerated() {
        longestLine = max(longestLine, bytes.count)
        var line = String(decoding: bytes, as: UTF8.self)
        if number == 0, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
        if line.isEmpty {
            buffered = nil
            continue
        }
        if line.hasPrefix(":") { continue }
        let field: Substring
        var value: Substring = ""
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = line[...]
        }
        guard field == "data" else { continue }
        let total = buffered.map { $0 + 1 + value.utf8.count } ?? value.utf8.count
        buffered = total
        mostData = max(mostData, total)
    }
    return (longestLine, mostData)
}

func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
    var result: [S.Element] = []
    for try await element in sequence { result.append(element) }
    return result
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzServerSentEventLimits_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
