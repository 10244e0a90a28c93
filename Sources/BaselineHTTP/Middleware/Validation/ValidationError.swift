import HTTPTypes

/// A response that ``ValidationMiddleware`` rejected for something other than
/// its status (a bad status is ``HTTPClientError/unacceptableStatus(_:body:)``).
public enum ValidationError: Error, Sendable {
    /// The response's `Content-Type` (`nil` when it had none) is not one the
    /// middleware accepts. The head keeps the status and header fields.
    case unacceptableContentType(String?, HTTPResponse)
}

extension ValidationError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .unacceptableContentType(contentType?, head):
            "Unacceptable content type \(contentType) (status \(head.status.code))"
        case let .unacceptableContentType(nil, head):
            "The response has a body but no content type (status \(head.status.code))"
        }
    }
}
