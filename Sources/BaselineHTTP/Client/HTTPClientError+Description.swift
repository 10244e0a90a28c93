import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One line a person can read for every failure: what a CLI prints and an
/// app shows. The error's cases keep the details (the raw body, the
/// underlying error) for code that wants them.
extension HTTPClientError: CustomStringConvertible, LocalizedError {
    /// One line a person can read: the status and the server's message,
    /// or what failed and where.
    public var description: String {
        switch self {
        case let .invalidRequest(reason):
            "Could not make the request: \(reason)"
        case let .transport(underlying):
            Self.describe(transportError: underlying)
        case let .unacceptableStatus(head, body):
            Self.describe(status: head.status, body: body)
        case let .decodingFailed(underlying, _):
            Self.describe(decodingError: underlying)
        case let .responseTooLarge(limit):
            "The response is larger than the limit of \(limit) bytes"
        case let .timedOut(after):
            "The request timed out after \(Self.describe(duration: after))"
        case let .tooManyRedirects(limit):
            "The server redirected more than \(limit) times"
        case let .unacceptableContentType(contentType?, head):
            "The server answered \(head.status.code) with content type \(contentType), which the request does not accept"
        case let .unacceptableContentType(nil, head):
            "The server answered \(head.status.code) with a body but no content type"
        case let .authenticationFailed(error):
            "Authentication failed: \(Self.describe(nested: Self.cause(of: error)))"
        case let .fileFailure(path, underlying):
            "Could not write \(path): \(Self.describe(nested: underlying))"
        case let .decompressionFailed(contentEncoding, reason):
            "Could not decode the \(contentEncoding) response body: \(reason)"
        }
    }

    /// The same line, for `localizedDescription` on Apple platforms.
    public var errorDescription: String? { description }

    /// The message the server put in its error document: the JSON body's
    /// `message`, `error.message`, `error` (a string), `detail`, `reason` or
    /// `title`, in that order; `nil` when there is none.
    public var serverMessage: String? {
        guard case let .unacceptableStatus(_, body) = self else { return nil }
        return Self.serverMessage(in: body)
    }

    static func serverMessage(in body: Data) -> String? {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        func text(_ value: Any?) -> String? {
            guard let string = value as? String else { return nil }
            let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        if let message = text(object["message"]) { return message }
        if let error = object["error"] as? [String: Any], let message = text(error["message"]) ?? text(error["detail"])
        {
            return message
        }
        for key in ["error", "detail", "reason", "title"] {
            if let message = text(object[key]) { return message }
        }
        return nil
    }

    /// "404 Not Found: No photo for 2024-13-01", or "The server answered
    /// 404 Not Found" when the body has no message.
    static func describe(status: HTTPResponse.Status, body: Data) -> String {
        let phrase = status.reasonPhrase.isEmpty ? reasonPhrases[status.code] ?? "" : status.reasonPhrase
        let statusText = phrase.isEmpty ? "\(status.code)" : "\(status.code) \(phrase)"
        if let message = serverMessage(in: body) { return "\(statusText): \(message)" }
        return "The server answered \(statusText)"
    }

    /// Standard phrases for statuses whose head carries none (HTTP/2, or a
    /// status made from its code alone).
    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 412: "Precondition Failed", 413: "Content Too Large", 415: "Unsupported Media Type",
        422: "Unprocessable Content", 429: "Too Many Requests", 500: "Internal Server Error",
        501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    /// Which field and why, from a `DecodingError`'s context.
    static func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else {
            return "Could not read the response: \(describe(nested: error))"
        }
        switch error {
        case let .keyNotFound(key, context):
            return "The response has no field \"\(path(context.codingPath + [key]))\""
        case let .valueNotFound(type, context) where context.codingPath.isEmpty:
            return "The response is null, expected \(article(typeName(type)))"
        case let .valueNotFound(type, context):
            return "The response's field \"\(path(context.codingPath))\" is null, expected \(article(typeName(type)))"
        case let .typeMismatch(type, context) where context.codingPath.isEmpty:
            return "The response is not \(article(typeName(type)))"
        case let .typeMismatch(type, context):
            return "The response's field \"\(path(context.codingPath))\" is not \(article(typeName(type)))"
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            return "The response is not valid JSON (\(sentence(context.debugDescription)))"
        case let .dataCorrupted(context):
            return
                "The response's field \"\(path(context.codingPath))\" is invalid (\(sentence(context.debugDescription)))"
        @unknown default:
            return "Could not read the response: \(error)"
        }
    }

    /// `photos[2].title`: keys joined with dots, indices in brackets. The
    /// document itself (an empty path) is "the document".
    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "(the document)" : text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "integer"
        case is Double.Type, is Float.Type: "number"
        case is [Any].Type: "array"
        case is [String: Any].Type: "object"
        default: "\(type)"
        }
    }

    private static func article(_ noun: String) -> String {
        let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
        return (noun.first.map { vowels.contains(Character($0.lowercased())) } ?? false ? "an " : "a ") + noun
    }

    /// A debug description without its trailing full stop, to sit in parentheses.
    private static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// The error an authentication failure wraps.
    private static func cause(of error: AuthenticationError) -> any Error {
        switch error {
        case let .tokenUnavailable(underlying), let .refreshFailed(underlying): underlying
        }
    }

    /// An error inside another, in one line: its own description where it
    /// has a readable one.
    static func describe(nested error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.description }
        if let error = error as? TransportFailure { return error.description }
        if error is URLError { return describe(transportError: error) }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        return String(describing: error)
    }

    /// "5 s", "250 ms", "1.5 s".
    static func describe(duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        // A limit of more than 292 million years is said in seconds.
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflowed else { return "\(seconds) s" }
        let milliseconds = whole + attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    /// A transport's error in one line: URLError and POSIX codes in words,
    /// with the server's `host:port` where the error names it.
    static func describe(transportError error: any Error) -> String {
        if let failure = error as? TransportFailure { return failure.description }
        if let error = error as? URLError {
            let target = error.failingURL.flatMap(hostAndPort(of:)) ?? "the server"
            switch error.code {
            case .cannotConnectToHost:
                return "Could not connect to \(target) (connection refused)"
            case .cannotFindHost, .dnsLookupFailed:
                return "Could not find the server \(error.failingURL?.host ?? target)"
            case .networkConnectionLost:
                return "The connection to \(target) was lost"
            case .timedOut:
                return "The request to \(target) timed out"
            case .notConnectedToInternet:
                return "There is no network connection"
            case .badServerResponse:
                return "\(target) sent a malformed response"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                return "Could not make a secure connection to \(target)"
            case .cancelled:
                return "The request to \(target) was cancelled"
            default:
                return "The request to \(target) failed (\(sentence(error.localizedDescription)))"
            }
        }
        if let error = error as? POSIXError {
            return "The connection failed (\(String(cString: strerror(error.code.rawValue)).lowercased()))"
        }
        return "The connection failed (\(describe(nested: error)))"
    }

    private static func hostAndPort(of url: URL) -> String? {
        guard let host = url.host else { return nil }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        return "\(host):\(port)"
    }
}
