import Foundation
import FuzzSupport

@testable import BaselineHTTP

// Properties of forms written by `MultipartForm` with fuzzed boundaries,
// names, filenames, content types and contents:
// - writing fails (with `invalidRequest`) exactly when the boundary is not
//   one RFC 2046 §5.1.1 allows or a content type holds a control character;
// - a written form scans back (with the example server's `MultipartScanner`)
//   to the same number of parts, each of its content's size, with the name
//   and filename the form wrote (`"`, CR and LF percent-encoded): nothing in
//   a name, filename or content type adds a header or a part. (Unless a
//   content holds the boundary line, which no form can carry.)
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    func text(upTo length: Int) -> String {
        String(decoding: (0..<input.number(in: 0...length)).map { _ in input.byte() }, as: UTF8.self)
    }
    // A boundary of the fuzzer's, or the form's random one.
    let boundaryChoice = input.byte()
    var form =
        boundaryChoice < 16
        ? MultipartForm()
        : MultipartForm(
            boundary: String(decoding: (0..<(Int(boundaryChoice) % 73)).map { _ in input.byte() }, as: UTF8.self)
        )
    struct Written {
        var name: String
        var filename: String?
        var contentType: String?
        var content: Data
    }
    var written: [Written] = []
    for _ in 0..<input.number(in: 0...4) {
        let isFile = input.byte() & 1 == 1
        let name = text(upTo: 16)
        let filename = text(upTo: 16)
        let contentType = text(upTo: 16)
        let content = Data(text(upTo: 48).utf8)
        if isFile {
            form = form.data(name, content, filename: filename, contentType: contentType)
            written.append(Written(name: name, filename: filename, contentType: contentType, content: content))
        } else {
            form = form.field(name, String(decoding: content, as: UTF8.self))
            written.append(Written(name: name, content: content))
        }
    }

    let writable =
        isRFC2046Boundary(form.boundary)
        && written.allSatisfy { part in
            part.contentType.map { $0.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) } } ?? true
        }
    let body: Data
    do {
        let httpBody = try form.makeHTTPBody()
        guard case .success(let collected) = synchronously({ try await httpBody.collect(upTo: .max) }) else {
            require(false, "the body could not be read")
            return 0
        }
        body = collected
    } catch {
        require(!writable, "a writable form failed: \(error)")
        guard case .invalidRequest = error as? HTTPClientError else {
            require(false, "failed with \(error), not invalidRequest")
            return 0
        }
        return 0
    }
    require(
        writable,
        "a form with boundary \(form.boundary.debugDescription) or a content type of \(written.map(\.contentType)) was written"
    )

    let delimiter = Array("\r\n--\(form.boundary)".utf8)
    guard !written.contains(where: { contains(Array($0.content), delimiter) }) else { return 0 }
    let scanned: [MultipartScanner.Part]
    do throws(MultipartScanner.Failure) {
        var scanner = try MultipartScanner(contentType: RequestBody.multipart(form).contentType)
        try scanner.consume(Array(body))
        scanned = try scanner.finish()
    } catch {
        require(false, "the form does not scan (\(error)): \(String(decoding: body, as: UTF8.self).debugDescription)")
        return 0
    }
    require(scanned.count == written.count, "\(written.count) parts scan as \(scanned.count): \(scanned)")
    for (part, read) in zip(written, scanned) {
        require(read.bytes == part.content.count, "a part of \(part.content.count) bytes scans as \(read.bytes)")
        // A value the scanner reads its own way spoils the rest of the line.
        guard readsAsWritten(part.name), part.filename.map(readsAsWritten) ?? true else { continue }
        let name = MultipartForm.quoted(part.name)
        require(
            read.name == name,
            "name \(part.name.debugDescription) scans as \(String(describing: read.name).debugDescription)"
        )
        let filename = part.filename.map(MultipartForm.quoted)
        require(
            read.filename == filename,
            "filename \(String(describing: part.filename).debugDescription) scans as \(String(describing: read.filename).debugDescription)"
        )
    }
    return 0
}

/// Whether the scanner reads `value`, as the form writes it (`"`, CR and LF
/// percent-encoded, the WHATWG HTML standard's escaping), back as written.
///
/// The scanner reads a backslash as escaping the next character (RFC 9110's
/// quoted-pair), which browsers' encoding does not write, and compares
/// `Character`s, so a quote that merges with a combining mark next to it is
/// not a quote to it. Either makes it read on past the closing quote, into
/// the next parameter: such parts' names are not compared.
func readsAsWritten(_ value: String) -> Bool {
    let escaped = MultipartForm.quoted(value)
    let quotesStandApart = Array("\"" + escaped + "\"").count == Array(escaped).count + 2
    return !escaped.contains("\\") && quotesStandApart
}

/// RFC 2046 §5.1.1, written out again: 1 to 70 of DIGIT / ALPHA / "'" / "("
/// / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?" / " ", not
/// ending in a space.
func isRFC2046Boundary(_ boundary: String) -> Bool {
    let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".unicodeScalars)
    return (1...70).contains(boundary.unicodeScalars.count) && boundary.unicodeScalars.allSatisfy(allowed.contains)
        && boundary.unicodeScalars.last != " "
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty else { return true }
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzMultipartForm_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
