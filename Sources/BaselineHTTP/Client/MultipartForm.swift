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

    /// An empty form with a random boundary.
    public init(boundary: String = "baseline-" + UUID().uuidString) {
        self.boundary = boundary
    }

    /// The form with a text field added.
    public func field(_ name: String, _ value: String) -> Self {
        adding(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// The form with bytes added as a file part.
    public func data(
        _ name: String,
        _ data: Data,
        filename: String,
        contentType: String = "application/octet-stream"
    ) -> Self {
        adding(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// The form with the file at `fileURL` added; it is read when the form is sent.
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
        var segments: [HTTPBody.Segment] = []
        for part in parts {
            var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename { header += "; filename=\"\(Self.quoted(filename))\"" }
            header += "\r\n"
            if let contentType = part.contentType { header += "Content-Type: \(contentType)\r\n" }
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
        return HTTPBody(segments: segments)
    }

    /// Escapes a name for a quoted header parameter (RFC 7578: `"`, CR and LF
    /// are percent-encoded).
    private static func quoted(_ value: String) -> String {
        value
            .replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
