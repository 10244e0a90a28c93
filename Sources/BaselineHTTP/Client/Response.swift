import Foundation
import HTTPTypes

/// A decoded response: the value, with the head, the raw body and the
/// request's metrics.
public struct Response<Value> {
    /// The decoded value.
    public let value: Value
    /// The response head: status and header fields.
    public let head: HTTPResponse
    /// The raw body, as received.
    public let body: Data
    /// Timings and byte counts of the exchange.
    public let metrics: RequestMetrics

    /// Creates a response.
    public init(value: Value, head: HTTPResponse, body: Data, metrics: RequestMetrics = RequestMetrics()) {
        self.value = value
        self.head = head
        self.body = body
        self.metrics = metrics
    }

    /// The response status.
    public var status: HTTPResponse.Status { head.status }
    /// The response header fields.
    public var headerFields: HTTPFields { head.headerFields }

    /// The same response carrying `value` instead.
    public func map<Other>(_ transform: (Value) throws -> Other) rethrows -> Response<Other> {
        Response<Other>(value: try transform(value), head: head, body: body, metrics: metrics)
    }
}

extension Response: Sendable where Value: Sendable {}

/// When a request started, when its first response byte arrived and when it
/// ended, and how many body bytes went each way — measured by the client, so
/// the same on every transport and platform.
///
/// Times cover the whole exchange through the middleware: a retried request's
/// metrics include its retries.
public struct RequestMetrics: Sendable, Equatable {
    /// When the request was handed to the middleware.
    public var startDate: Date
    /// From the start to the response head (the first byte of the response).
    public var timeToFirstByte: Duration
    /// From the start to the last byte of the body.
    public var duration: Duration
    /// Request body bytes sent.
    public var bytesSent: Int
    /// Response body bytes received.
    public var bytesReceived: Int

    /// Creates metrics; all zero by default (a response made by hand).
    public init(
        startDate: Date = Date(timeIntervalSince1970: 0),
        timeToFirstByte: Duration = .zero,
        duration: Duration = .zero,
        bytesSent: Int = 0,
        bytesReceived: Int = 0
    ) {
        self.startDate = startDate
        self.timeToFirstByte = timeToFirstByte
        self.duration = duration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }

    /// When the first byte of the response arrived.
    public var firstByteDate: Date { startDate.addingTimeInterval(timeToFirstByte.timeInterval) }
    /// When the last byte arrived.
    public var endDate: Date { startDate.addingTimeInterval(duration.timeInterval) }
}

extension Duration {
    /// The duration in seconds, as Foundation counts them.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
