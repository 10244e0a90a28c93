import Foundation
import HTTPTypes

/// A decoded response: the value, with the head and the raw body it came from.
public struct Response<Value> {
    /// The decoded value.
    public let value: Value
    /// The response head: status and header fields.
    public let head: HTTPResponse
    /// The raw body, as received.
    public let body: Data

    /// Creates a response.
    public init(value: Value, head: HTTPResponse, body: Data) {
        self.value = value
        self.head = head
        self.body = body
    }

    /// The response status.
    public var status: HTTPResponse.Status { head.status }
    /// The response header fields.
    public var headerFields: HTTPFields { head.headerFields }
}

extension Response: Sendable where Value: Sendable {}
