import Foundation
import HTTPTypes
import Hummingbird

extension Request {
    /// The body decoded from JSON as `T`; 400 with a message naming what is
    /// wrong otherwise: the missing field, the field of the wrong type, or
    /// where the JSON itself breaks. Bodies over the context's
    /// `maxUploadSize` get 413 before they are buffered, and a declared
    /// `Content-Length` over it gets 413 before a byte is read (rather than
    /// a wait for bytes that will be refused).
    ///
    /// Every route that takes a JSON body decodes it here, so that a client
    /// (or a person reading its log) learns which field to fix rather than
    /// that "the data was not valid".
    func decodeJSONBody<T: Decodable>(as type: T.Type, context: some RequestContext) async throws -> T {
        if let declared = declaredContentLength, declared > context.maxUploadSize {
            throw APIError(
                .contentTooLarge,
                code: "body_too_large",
                message: "JSON bodies are limited to \(context.maxUploadSize) bytes."
            )
        }
        var request = self
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard body.readableBytes > 0 else {
            throw APIError(.badRequest, code: "bad_request", message: "The request needs a JSON body; it was empty.")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, code: "bad_request", message: Self.message(for: error))
        }
    }

    /// The `Content-Length` the request declares, saturated at `Int.max`
    /// (digits past it still declare more than any limit); nil when absent
    /// or not a number.
    var declaredContentLength: Int? {
        guard let text = headers[.contentLength], !text.isEmpty,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text) ?? Int.max
    }

    /// A sentence a person can act on for a decoding failure.
    static func message(for error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, context):
            return "The JSON body is missing the field \(fieldName(context.codingPath + [key]))."
        case let .valueNotFound(type, context):
            return "The field \(fieldName(context.codingPath)) must be \(typeName(type)), not null."
        case let .typeMismatch(type, context) where context.codingPath.isEmpty:
            return "The JSON body must be \(typeName(type))."
        case let .typeMismatch(type, context):
            return "The field \(fieldName(context.codingPath)) must be \(typeName(type))."
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            // Foundation's parser says where it stopped in its underlying error.
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "The body is not valid JSON" + (detail.map { ": \($0)" } ?? ".")
        case let .dataCorrupted(context):
            return "The field \(fieldName(context.codingPath)) is not valid: \(context.debugDescription)"
        @unknown default:
            return "The JSON body does not have the expected fields."
        }
    }

    /// `password`, `items[2].name`: the path to a field as a client writes it.
    static func fieldName(_ path: [any CodingKey]) -> String {
        var name = ""
        for key in path {
            if let index = key.intValue {
                name += "[\(index)]"
            } else {
                name += name.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return "`\(name)`"
    }

    /// The JSON kind a Swift type decodes from.
    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [String: Any].Type: "an object"
        case is any Sequence.Type: "an array"
        default: "an object"
        }
    }
}
