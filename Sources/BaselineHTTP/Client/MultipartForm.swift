import Foundation

/// A `multipart/form-data` body: text fields and files, in order.
///
/// ```swift
/// let form = MultipartForm()
///     .field("caption", "The Pillars of Creation")
///     .file("photo", at: photoURL, contentType: "image/png")
/// let response = try await client.send(.post("/uploads", body: .multipart(form)) as Request<UploadReceipt>)
/// ```
///
/// File parts are read from disk as the body is sent.
///
/// What goes into the parts' headers is made safe, as browsers do, so no
/// name or value can add a header or a part of its own:
/// - Names and filenames are written as the WHATWG HTML standard's
///   `multipart/form-data` encoding says (and RFC 7578 §4.2 allows): `"`,
///   CR and LF become `%22`, `%0D` and `%0A`; everything else, non-ASCII
///   text included, is sent as UTF-8.
/// - A content type holding CR, LF or another control character (a tab
///   aside), and a boundary that RFC 2046 §5.1.1 does not allow (1 to 70
///   of its characters, not ending in a space), cannot be written at all:
///   sending the form fails with ``HTTPClientError/invalidRequest(reason:)``
///   before anything is sent.
public struct MultipartForm: Sendable {
    enum Content: Sendable {
        case data(Data)
        case file(URL)
    }

    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var content: Content
    }

    /// The boundary between parts.
    public let boundary: String
    var parts: [Part] = []

    /// An empty form.
    ///
    /// - Parameter boundary: The line between parts: by default a random
    ///   one, which no part's bytes can contain but by chance. One of your
    ///   own must not occur in any part, and must be 1 to 70 of the
    ///   characters RFC 2046 §5.1.1 allows (letters, digits, space and
    ///   `'()+_,-./:=?`), not ending in a space; otherwise sending the form
    ///   fails with ``HTTPClientError/invalidRequest(reason:)``.
    public init(boundary: String = "baseline-" + UUID().uuidString) {
        self.boundary = boundary
    }

    /// The form with a text field added.
    public func field(_ name: String, _ value: String) -> Self {
        adding(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// The form with bytes added as a file part. A `contentType` with a line
    /// break fails the request: see ``MultipartForm``.
    public func data(
        _ name: String,
        _ data: Data,
        filename: String,
        contentType: String = "application/octet-stream"
    ) -> Self {
        adding(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// The form with the file at `fileURL` added; it is read when the form is
    /// sent. A `contentType` with a line break fails the request: see
    /// ``MultipartForm``.
    public func file(
        _ name: String,
        at fileURL: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> Self {
        adding(
            Part(
                name: name,
                filename: filename ?? fileURL.lastPathComponent,
                contentType: contentType,
                content: .file(fileURL)
            )
        )
    }

    private func adding(_ part: Part) -> Self {
        var copy = self
        copy.parts.append(part)
        return copy
    }

    /// The encoded form: each part's headers in memory, file contents read as sent.
    func makeHTTPBody() throws -> HTTPBody {
        guard Self.isValidBoundary(boundary) else {
            throw HTTPClientError.invalidRequest(
                reason:
                    "The multipart boundary \(boundary.debugDescription) is not 1 to 70 of the characters RFC 2046 allows"
            )
        }
        var segments: [HTTPBody.Segment] = []
        for part in parts {
            var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename { header += "; filename=\"\(Self.quoted(filename))\"" }
            header += "\r\n"
            if let contentType = part.contentType {
                // A line break would end the header line and start another
                // (a header, or a boundary) of the sender's choosing.
                guard Self.isValidFieldValue(contentType) else {
                    throw HTTPClientError.invalidRequest(
                        reason:
                            "The content type \(contentType.debugDescription) of part \(part.name.debugDescription) holds a control character"
                    )
                }
                header += "Content-Type: \(contentType)\r\n"
            }
            header += "\r\n"
            segments.append(.data(Data(header.utf8)))
            switch part.content {
            case let .data(data):
                segments.append(.data(data))
            case let .file(url):
                segments.append(.file(url, length: try HTTPBody.fileSize(at: url)))
            }
            segments.append(.data(Data("\r\n".utf8)))
        }
        segments.append(.data(Data("--\(boundary)--\r\n".utf8)))
        return try HTTPBody(segments: segments)
    }

    /// The `Content-Type` of the whole form: the boundary quoted when it
    /// holds a character a token cannot (RFC 2045 §5.1: a space, `:`,
    /// `/`, `?`, `=`, `(`, `)` or `,`).
    var contentType: String {
        let isToken = boundary.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "="),
                UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","):
                false
            default: true
            }
        }
        return isToken ? "multipart/form-data; boundary=\(boundary)" : "multipart/form-data; boundary=\"\(boundary)\""
    }

    /// Whether `boundary` is one RFC 2046 §5.1.1 allows:
    ///
    ///     boundary := 0*69<bchars> bcharsnospace
    ///     bchars := bcharsnospace / " "
    ///     bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "+"), UInt8(ascii: "_"), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
                true
            default: false
            }
        }
    }

    /// Whether `value` can be a header field's value as it is (RFC 9110
    /// §5.5): no control characters but the tab, so no CR or LF.
    static func isValidFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Escapes a name for a quoted header parameter as the WHATWG HTML
    /// standard's `multipart/form-data` encoding does (RFC 7578 §4.2 allows
    /// it): `"`, CR and LF are percent-encoded.
    ///
    /// Byte by byte: compared as `Character`s, a `"` followed by a
    /// combining mark is not a `"`, and would close the quotes unescaped.
    static func quoted(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }) else { return value }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): escaped += Array("%22".utf8)
            case 0x0D: escaped += Array("%0D".utf8)
            case 0x0A: escaped += Array("%0A".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }
}
