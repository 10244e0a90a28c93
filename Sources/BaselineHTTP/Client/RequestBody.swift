import Foundation

/// The body of a ``Request``: JSON, raw bytes, text, a file, a URL-encoded
/// form or a multipart form.
///
/// ```swift
/// .post("/auth/login", body: .json(credentials))
/// .post("/uploads", body: .file(photoURL, contentType: "image/png"))
/// .post("/uploads", body: .multipart(MultipartForm()
///     .field("title", "Orion")
///     .file("photo", at: photoURL, contentType: "image/jpeg")))
/// ```
///
/// Files are read as they are sent, not loaded first.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case json(any Encodable & Sendable)
        /// JSON encoded when the body was made; a failure is thrown on sending.
        case encoded(Result<Data, EncodingFailure>)
        case file(URL)
        case multipart(MultipartForm)
    }

    let content: Content
    /// The `Content-Type` sent with the body.
    public let contentType: String

    /// `value` encoded as JSON with the client's encoder, when the request is sent.
    ///
    /// This overload serves a type whose `Encodable` conformance may be used
    /// anywhere. A type whose conformance is isolated to an actor (the
    /// default for a type declared in an Xcode 26 app target, isolated to the
    /// main actor) is served by ``json(_:encoder:)`` instead.
    public static func json(_ value: some Encodable & Sendable) -> RequestBody {
        RequestBody(content: .json(value), contentType: "application/json")
    }

    /// `value` encoded as JSON now, on the caller's actor, with `encoder`.
    ///
    /// What a type whose `Encodable` conformance is isolated to the caller's
    /// actor needs (`struct Credentials: Encodable` in a module whose default
    /// isolation is `MainActor`): its conformance cannot be used where the
    /// request is sent, so the body is encoded where it is made. The client's
    /// ``HTTPClient/Configuration/encoder`` does not apply; pass the same
    /// encoder here, or declare the type `nonisolated` to have the client
    /// encode it. A failure to encode is thrown when the request is sent.
    @_disfavoredOverload
    public static func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) -> RequestBody {
        let encoded = Result { try encoder.encode(value) }.mapError { EncodingFailure(description: "\($0)") }
        return RequestBody(content: .encoded(encoded), contentType: "application/json")
    }

    /// Why a body encoded when it was made could not be: the encoding error,
    /// described (the error itself need not be `Sendable`).
    struct EncodingFailure: Error, Sendable {
        let description: String
    }

    /// Raw bytes of the given content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// UTF-8 text of the given content type.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8)), contentType: contentType)
    }

    /// The contents of the file at `fileURL`, read as they are sent.
    public static func file(_ fileURL: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .file(fileURL), contentType: contentType)
    }

    /// An `application/x-www-form-urlencoded` form, fields in order.
    public static func form(_ fields: [(name: String, value: String)]) -> RequestBody {
        let encoded =
            fields
            .map { "\(formEncode($0.name))=\(formEncode($0.value))" }
            .joined(separator: "&")
        return RequestBody(content: .data(Data(encoded.utf8)), contentType: "application/x-www-form-urlencoded")
    }

    /// A `multipart/form-data` form.
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(content: .multipart(form), contentType: form.contentType)
    }

    /// Percent-encodes for a form: everything but unreserved characters, with
    /// spaces as `+` (the HTML form rules).
    static func formEncode(_ string: String) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._* ")
        let escaped = string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? string
        return escaped.replacingOccurrences(of: " ", with: "+")
    }

    /// The body's bytes, as the transport will send them.
    func makeHTTPBody(encoder: JSONEncoder) throws -> HTTPBody {
        switch content {
        case let .data(data):
            return HTTPBody(data)
        case let .json(value):
            do {
                return HTTPBody(try encoder.encode(value))
            } catch {
                throw HTTPClientError.invalidRequest(reason: "The JSON body could not be encoded: \(error)")
            }
        case let .encoded(.success(data)):
            return HTTPBody(data)
        case let .encoded(.failure(failure)):
            throw HTTPClientError.invalidRequest(reason: "The JSON body could not be encoded: \(failure.description)")
        case let .file(url):
            return try HTTPBody(contentsOf: url)
        case let .multipart(form):
            return try form.makeHTTPBody()
        }
    }
}
