import Foundation
import HTTPTypes

/// The coding a response's `Content-Encoding` names, as far as Baseline
/// decodes it.
enum ContentCoding: Equatable, Sendable {
    /// No coding: the field is absent or says `identity`.
    case identity
    /// `gzip` (or its old name `x-gzip`): a gzip file, RFC 1952.
    case gzip
    /// `deflate`: a zlib stream (RFC 1950), or, from servers that get it
    /// wrong, a raw deflate stream (RFC 1951).
    case deflate
    /// Anything else, including more than one coding (`gzip, br`): left to
    /// the caller, body and field untouched.
    case other(String)

    /// The value of `Accept-Encoding` the client sends: the codings it decodes.
    static let acceptedByDefault = "gzip, deflate"

    /// The coding of a response with these header fields.
    init(_ fields: HTTPFields) {
        let values = fields[values: .contentEncoding]
        // Several fields are one list (RFC 9110 §5.3); "identity" entries add nothing.
        let codings = values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        switch codings.count {
        case 0: self = .identity
        case 1 where codings[0] == "gzip" || codings[0] == "x-gzip": self = .gzip
        case 1 where codings[0] == "deflate": self = .deflate
        default: self = .other(codings.joined(separator: ", "))
        }
    }

    /// The name used in errors.
    var name: String {
        switch self {
        case .identity: "identity"
        case .gzip: "gzip"
        case .deflate: "deflate"
        case let .other(name): name
        }
    }
}

extension HTTPResponse {
    /// This head once its body is decoded: `Content-Encoding` removed, and
    /// `Content-Length` too, since it counted the encoded bytes.
    func withContentDecoded() -> HTTPResponse {
        var head = self
        head.headerFields[.contentEncoding] = nil
        head.headerFields[.contentLength] = nil
        return head
    }
}
