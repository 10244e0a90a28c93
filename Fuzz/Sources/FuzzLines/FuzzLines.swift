import BaselineHTTP
import Foundation
import FuzzSupport

// Properties: the lines joined with "\n" give the input back (each line
// without the "\r" of a CRLF ending; a last line without a newline
// included); the same bytes cut into other chunks give the same lines, or
// the same failure; no line longer than the limit comes through; NDJSON
// lines decode as JSON the same however the bytes are cut.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let limit = input.number(in: 1...64)
    let cuts = [Int(input.byte()), Int(input.byte()), Int(input.byte())]
    let bytes = input.rest()
    let cutPoints = cuts.map { bytes.isEmpty ? 0 : $0 % (bytes.count + 1) }

    // One hop to the concurrency runtime for every split of this input.
    let outcomes = synchronously {
        (
            [
                await outcome { try await collect(Chunks([Data(bytes)]).lines()) },
                await outcome { try await collect(Chunks([Data(bytes)]).lines(maximumLength: limit)) },
                await outcome { try await collect(Chunks(bytes, cutAt: cutPoints).lines(maximumLength: limit)) },
            ],
            await outcome { try await collect(Chunks(bytes, cutAt: cutPoints).jsonLines(of: JSONValue.self)) },
            await outcome { try await collect(Chunks([Data(bytes)]).jsonLines(of: JSONValue.self)) }
        )
    }
    guard case .success(let (splits, json, jsonWhole)) = outcomes, case .success(let lines) = splits[0] else {
        require(false, "an unlimited split failed: \(outcomes)")
        return 0
    }
    let (limited, limitedCut) = (splits[1], splits[2])
    require(lines == expectedLines(bytes), "lines \(lines) do not give the input back")

    // A line's bytes are those before its "\n" ("\r" included): the
    // limit holds for each, however the bytes arrive.
    var pieces = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if pieces.last?.isEmpty == true { pieces.removeLast() }
    let fits = pieces.allSatisfy { $0.count <= limit }
    for (result, name) in [(limited, "whole"), (limitedCut, "cut at \(cutPoints)")] {
        switch result {
        case .success(let limitedLines):
            require(fits, "\(name): a line over \(limit) bytes came through")
            require(limitedLines == lines, "\(name): \(limitedLines), without a limit: \(lines)")
        case .failure(let error):
            require(!fits, "\(name): failed with \(error), but every line fits in \(limit) bytes")
        }
    }

    switch (json, jsonWhole) {
    case (.success(let a), .success(let b)): require(a == b, "NDJSON cut at \(cutPoints) differs")
    case (.failure, .failure): break
    default: require(false, "NDJSON cut at \(cutPoints): \(json); whole: \(jsonWhole)")
    }
    return 0
}

/// What the splitter promises, from the whole input at once.
func expectedLines(_ bytes: [UInt8]) -> [String] {
    var pieces = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if pieces.last?.isEmpty == true { pieces.removeLast() }
    return pieces.map { piece in
        String(decoding: piece.last == UInt8(ascii: "\r") ? piece.dropLast() : piece, as: UTF8.self)
    }
}

/// Any JSON value, compared by what it decodes to.
enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

func collect<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
    var result: [S.Element] = []
    for try await element in sequence { result.append(element) }
    return result
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzLines_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
