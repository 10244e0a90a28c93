import FuzzSupport

// Properties: the same body cut into chunks anywhere gives the same parts
// or the same failure; the parts' bytes never add up to more than the body;
// no more parts than the limit, no name or file name over its length.
// The first bytes name the boundary, so the fuzzer can match it in the body.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let boundaryLength = input.number(in: 0...12)
    let boundary = String(decoding: (0..<boundaryLength).map { _ in input.byte() }, as: UTF8.self)
    let cuts = [Int(input.byte()), Int(input.byte()), Int(input.byte())]
    let body = input.rest()
    let cutPoints = cuts.map { $0 % (body.count + 1) }.sorted()
    let contentType = "multipart/form-data; boundary=\(boundary)"

    let whole = scan(contentType, [body[...]])
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    for cut in cutPoints {
        chunks.append(body[start..<cut])
        start = cut
    }
    chunks.append(body[start...])
    let cut = scan(contentType, chunks)
    require(whole == cut, "cut at \(cutPoints): \(cut); whole: \(whole)")
    if case .success(let parts) = whole {
        require(
            parts.reduce(0) { $0 + $1.bytes } <= body.count,
            "parts of \(parts.map(\.bytes)) bytes in \(body.count)"
        )
        require(parts.allSatisfy { $0.bytes >= 0 }, "a part of negative size: \(parts)")
        // What a receipt keeps is bounded.
        require(parts.count <= MultipartScanner.maximumParts, "\(parts.count) parts")
        require(
            parts.allSatisfy {
                ($0.name?.utf8.count ?? 0) <= MultipartScanner.maximumNameLength
                    && ($0.filename?.utf8.count ?? 0) <= MultipartScanner.maximumNameLength
            },
            "a name over \(MultipartScanner.maximumNameLength) bytes"
        )
    }
    return 0
}

func scan(
    _ contentType: String,
    _ chunks: [ArraySlice<UInt8>]
) -> Result<[MultipartScanner.Part], MultipartScanner.Failure> {
    do throws(MultipartScanner.Failure) {
        var scanner = try MultipartScanner(contentType: contentType)
        for chunk in chunks { try scanner.consume(chunk) }
        return .success(try scanner.finish())
    } catch {
        return .failure(error)
    }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzMultipartScanner_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
