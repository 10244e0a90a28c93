import Foundation

/// Reads a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) as it
/// streams in, keeping only what describes each part (its name, file name
/// and size), never the parts' bytes: memory stays bounded by the header
/// limit, whatever the size of the upload.
///
/// What it keeps is bounded too, since it outlives the request (in the
/// upload's receipt): at most ``maximumParts`` parts (more is
/// ``Failure/tooManyParts``), and names and file names cut to their first
/// ``maximumNameLength`` bytes of UTF-8, at a character boundary.
///
/// Feed it chunks with ``consume(_:)``, then call ``finish()``.
struct MultipartScanner {
    /// What the scanner learnt about one part.
    struct Part: Sendable, Equatable, Codable {
        var name: String?
        var filename: String?
        var bytes: Int
    }

    /// Why a body is not valid multipart.
    enum Failure: Error, Equatable {
        case missingBoundary
        case headersTooLarge
        case malformedPart
        case unterminated
        /// More than ``MultipartScanner/maximumParts`` parts.
        case tooManyParts
    }

    private enum State {
        /// Before the first boundary: the preamble, ignored.
        case preamble
        /// Just after a boundary: `--` ends the body, CRLF starts a part.
        case afterBoundary
        case headers
        case body
        /// After the closing boundary: the epilogue, ignored.
        case done
    }

    /// The most header bytes one part may have.
    static let maximumHeaderSize = 16 * 1024

    /// The most parts one body may have (as Go's `mime/multipart` allows).
    static let maximumParts = 1_000

    /// The most UTF-8 bytes kept of a part's name or file name: longer
    /// ones are cut (255 is the longest file name most file systems take).
    static let maximumNameLength = 255

    private let delimiter: [UInt8]
    private var state = State.preamble
    private var buffer: [UInt8]
    private var current: Part?
    private(set) var parts: [Part] = []

    /// A scanner for bodies whose Content-Type is `contentType`; throws
    /// ``Failure/missingBoundary`` when it has no usable boundary.
    init(contentType: String) throws(Failure) {
        guard let boundary = Self.boundary(in: contentType) else { throw .missingBoundary }
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first boundary may start the body without a line break before
        // it: pretend there was one, so every boundary looks the same.
        buffer = [0x0D, 0x0A]
    }

    /// The `boundary` parameter of a multipart Content-Type (1 to 70
    /// characters, quoted or not).
    static func boundary(in contentType: String) -> String? {
        let parameters = contentType.split(separator: ";").dropFirst()
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            guard (1...70).contains(value.count), value.allSatisfy({ $0.isASCII && $0 != "\r" && $0 != "\n" }) else {
                return nil
            }
            return String(value)
        }
        return nil
    }

    /// Scans the next chunk of the body.
    mutating func consume(_ chunk: some Sequence<UInt8>) throws(Failure) {
        guard state != .done else { return }
        buffer.append(contentsOf: chunk)
        var position = 0
        scanning: while true {
            switch state {
            case .preamble, .body:
                if let match = Self.find(delimiter, in: buffer, from: position) {
                    if state == .body {
                        current?.bytes += match - position
                        try closePart()
                    }
                    position = match + delimiter.count
                    state = .afterBoundary
                } else {
                    // Keep what could be the start of a delimiter split across chunks.
                    let safe = max(position, buffer.count - (delimiter.count - 1))
                    if state == .body { current?.bytes += safe - position }
                    position = safe
                    break scanning
                }
            case .afterBoundary:
                // Transport padding (spaces, tabs) may follow a boundary.
                while position < buffer.count, buffer[position] == 0x20 || buffer[position] == 0x09 { position += 1 }
                guard buffer.count - position >= 2 else { break scanning }
                if buffer[position] == 0x2D, buffer[position + 1] == 0x2D {  // "--": the last boundary
                    state = .done
                    position = buffer.count
                    break scanning
                }
                guard buffer[position] == 0x0D, buffer[position + 1] == 0x0A else { throw .malformedPart }
                // Stay on the line break: with no headers, it and the blank
                // line after it are the CRLF CRLF that ends them.
                state = .headers
                current = Part(name: nil, filename: nil, bytes: 0)
            case .headers:
                guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: buffer, from: position) else {
                    if buffer.count - position > Self.maximumHeaderSize + 2 { throw .headersTooLarge }
                    break scanning
                }
                if end - position > Self.maximumHeaderSize + 2 { throw .headersTooLarge }
                if end > position { try readHeaders(buffer[(position + 2)..<end]) }
                position = end + 4
                state = .body
            case .done:
                position = buffer.count
                break scanning
            }
        }
        buffer.removeFirst(position)
    }

    /// The parts, once the whole body was scanned.
    func finish() throws(Failure) -> [Part] {
        guard state == .done else { throw .unterminated }
        return parts
    }

    private mutating func closePart() throws(Failure) {
        guard let part = current else { throw .malformedPart }
        guard parts.count < Self.maximumParts else { throw .tooManyParts }
        parts.append(part)
        current = nil
    }

    private mutating func readHeaders(_ bytes: ArraySlice<UInt8>) throws(Failure) {
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw .malformedPart }
        for line in text.split(separator: "\r\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2 else { throw .malformedPart }
            guard field[0].trimmingSpaces.lowercased() == "content-disposition" else { continue }
            let parameters = Self.parameters(of: field[1])
            current?.name = parameters["name"].map(Self.truncated)
            current?.filename = parameters["filename"].map(Self.truncated)
        }
    }

    /// `text` cut to at most ``maximumNameLength`` bytes of UTF-8, at a
    /// character boundary, so a name never ends in half a character.
    static func truncated(_ text: String) -> String {
        guard text.utf8.count > maximumNameLength else { return text }
        var end = text.startIndex
        var length = 0
        for character in text {
            length += character.utf8.count
            guard length <= maximumNameLength else { break }
            end = text.index(after: end)
        }
        return String(text[..<end])
    }

    /// The parameters of a header value such as `form-data; name="a"; filename="b.png"`.
    static func parameters(of value: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = value.drop { $0 != ";" }
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingSpaces.lowercased()
            rest = rest[rest.index(after: equals)...]
            if rest.first == "\"" {
                // A quoted string; a backslash escapes the next character.
                var text = ""
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "\"" {
                    if rest[index] == "\\", rest.index(after: index) < rest.endIndex {
                        index = rest.index(after: index)
                    }
                    text.append(rest[index])
                    index = rest.index(after: index)
                }
                result[key] = text
                rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                result[key] = String(rest[..<end].trimmingSpaces)
                rest = rest[end...]
            }
        }
        return result
    }

    /// The index where `needle` first occurs in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = max(start, 0)
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}

extension Substring {
    /// Without the spaces and tabs at either end.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
