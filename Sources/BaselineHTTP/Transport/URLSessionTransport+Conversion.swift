import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Between HTTPTypes' request and response and Foundation's.
///
/// swift-http-types' own conversions (`HTTPTypesFoundation`) do the same
/// job; these are written for the per-request path: the URL is parsed from
/// one string, a `GET` leaves the method alone (setting it normalises the
/// string), header fields go into one dictionary, and the response's
/// fields are read without first copying the dictionary to `[String: String]`.
/// Each of those is an allocation or two that every request paid.
extension URLSessionTransport {
    /// The `URLRequest` for `request`, or `nil` when it has no absolute URL.
    static func urlRequest(for request: HTTPRequest) -> URLRequest? {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            return nil
        }
        var text = String()
        text.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        text += scheme
        text += "://"
        text += authority
        text += path
        guard let url = URL(string: text) else { return nil }
        var urlRequest = URLRequest(url: url)
        if request.method != .get {
            urlRequest.httpMethod = request.method.rawValue
        }
        let fields = request.headerFields
        if !fields.isEmpty {
            var combined = [String: String](minimumCapacity: fields.count)
            for (position, field) in fields.enumerated() {
                // A name seen before (in any case) was written with all its values.
                if fields.prefix(position).contains(where: { $0.name == field.name }) { continue }
                let repeated = fields.dropFirst(position + 1).contains { $0.name == field.name }
                if repeated, let joined = fields[field.name] {
                    // HTTPFields joins repeated fields as HTTP does (`, `; `; ` for cookies).
                    combined[field.name.rawName] = Latin1.string(fromBytes: Array(joined.utf8))
                } else {
                    combined[field.name.rawName] = Latin1.value(of: field)
                }
            }
            urlRequest.allHTTPHeaderFields = combined
        }
        return urlRequest
    }

    /// The response head of `response`, or `nil` when its status is not a
    /// three-digit code.
    static func responseHead(of response: HTTPURLResponse) -> HTTPResponse? {
        guard (0...999).contains(response.statusCode) else { return nil }
        let fields = response.allHeaderFields
        var headerFields = HTTPFields()
        headerFields.reserveCapacity(fields.count)
        for (key, value) in fields {
            guard let text = key.base as? String, let name = HTTPField.Name(text), let value = value as? String else {
                continue
            }
            headerFields.append(Latin1.field(name, value))
        }
        return HTTPResponse(sharingStatus: response.statusCode, headerFields: headerFields)
    }
}

/// Foundation keeps header values as ISO Latin-1 text: each byte on the wire
/// is one character. HTTPTypes keeps them as bytes. Plain ASCII, nearly every
/// value, is the same in both and passes through untouched.
enum Latin1 {
    /// The Latin-1 string whose characters are the bytes of `field`'s value:
    /// the value itself when it is ASCII (no copy).
    static func value(of field: HTTPField) -> String {
        let isASCII = field.withUnsafeBytesOfValue { bytes in bytes.allSatisfy { $0 < 0x80 } }
        return isASCII ? field.value : field.withUnsafeBytesOfValue { string(fromBytes: $0) }
    }

    /// The Latin-1 string whose characters are the bytes `value` holds.
    static func string(fromBytes value: some Collection<UInt8>) -> String {
        if value.allSatisfy({ $0 < 0x80 }) { return String(decoding: value, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for byte in value { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }

    /// The field whose value bytes the Latin-1 `value` spells; a character
    /// beyond Latin-1 (which the wire cannot have carried) keeps its UTF-8 bytes.
    static func field(_ name: HTTPField.Name, _ value: String) -> HTTPField {
        if value.utf8.allSatisfy({ $0 < 0x80 }) { return HTTPField(name: name, value: value) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            guard scalar.value <= 0xFF else { return HTTPField(name: name, value: value) }
            bytes.append(UInt8(scalar.value))
        }
        return HTTPField(name: name, value: bytes)
    }
}
