import Foundation
import HTTPTypes

extension HTTPClient {
    /// The Server-Sent Events of `request`, reconnecting as a browser's
    /// `EventSource` does when the connection ends or drops.
    ///
    /// ```swift
    /// for try await event in client.serverSentEvents(Request<Void>.get("/events/sse")) {
    ///     let update = try event.decode(FavoriteEvent.self)
    /// }
    /// ```
    ///
    /// - Each connection asks for `text/event-stream`, and after the first
    ///   sends `Last-Event-ID` with the last `id:` received, so the server
    ///   can send what was missed.
    /// - When a connection ends or drops, or cannot be made, the stream
    ///   waits (``ServerSentEventReconnection/delay``, or the server's
    ///   latest `retry:`) and connects again.
    /// - It ends without error when the server answers 204 No Content (the
    ///   way to tell a client to stop). It throws, and ends, on any other
    ///   status than 200 OK (``HTTPClientError/unacceptableStatus(_:body:)``;
    ///   a 2xx other than 200 and 204 too, as an `EventSource` fails the
    ///   connection for it, with an empty body), on a response that is not
    ///   `text/event-stream`, on a line or event over its limit, and after
    ///   ``ServerSentEventReconnection/maximumAttempts`` failed attempts in a
    ///   row.
    /// - Cancelling the task that iterates ends it at once, waiting or
    ///   reading, with `CancellationError`.
    ///
    /// For a single connection without reconnection, read
    /// ``HTTPBody/serverSentEvents(maximumLineLength:maximumEventLength:)``
    /// from ``stream(_:)``.
    ///
    /// - Parameters:
    ///   - request: The request each connection sends.
    ///   - reconnection: When and how often to connect again.
    ///   - maximumLineLength: The longest line accepted, in bytes.
    ///   - maximumEventLength: The most data one event may hold, in bytes:
    ///     see ``HTTPBody/serverSentEvents(maximumLineLength:maximumEventLength:)``.
    public func serverSentEvents<Value>(
        _ request: Request<Value>,
        reconnection: ServerSentEventReconnection = ServerSentEventReconnection(),
        maximumLineLength: Int = 1024 * 1024,
        maximumEventLength: Int = 16 * 1024 * 1024
    ) -> ServerSentEventStream {
        ServerSentEventStream(
            reconnection: reconnection,
            maximumLineLength: maximumLineLength,
            maximumEventLength: maximumEventLength
        ) { lastEventID in
            var attempt = request
            attempt.headerFields[.accept] = "text/event-stream"
            attempt.headerFields[.cacheControl] = "no-cache"
            if let lastEventID, !lastEventID.isEmpty {
                attempt.headerFields[ServerSentEventStream.lastEventID] = lastEventID
            }
            return try await self.stream(attempt)
        }
    }
}

/// Server-Sent Events over connections made one after another: see
/// ``HTTPClient/serverSentEvents(_:reconnection:maximumLineLength:maximumEventLength:)``.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// The type of the values the sequence produces.
    public typealias Element = ServerSentEvent

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    let reconnection: ServerSentEventReconnection
    let maximumLineLength: Int
    let maximumEventLength: Int
    let connect: @Sendable (_ lastEventID: String?) async throws -> StreamingResponse

    /// Starts reading: the first connection is made by the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads events, connecting and reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ServerSentEventStream
        var events: AsyncServerSentEventSequence<HTTPBody>.Iterator?
        var lastEventID: String?
        var delay: Duration
        var connections = 0
        var failedAttempts = 0
        var finished = false

        init(stream: ServerSentEventStream) {
            self.stream = stream
            self.delay = stream.reconnection.delay
        }

        /// The next event, or `nil` once the server said to stop (204).
        public mutating func next() async throws -> ServerSentEvent? {
            while !finished {
                do {
                    try Task.checkCancellation()
                    if events == nil { try await connect() }
                    guard var current = events else { continue }
                    let read = await Result { try await current.next() }
                    // What the connection said before it ended or dropped
                    // counts for the next one either way.
                    if let time = current.reconnectionTime { delay = time }
                    lastEventID = current.dispatchedID
                    if let event = try read.get() {
                        events = current
                        return event
                    }
                    // The server ended the connection: reconnect.
                    events = nil
                } catch {
                    try handle(error)
                }
            }
            return nil
        }

        /// Waits if this is a reconnection, then connects.
        private mutating func connect() async throws {
            if connections > 0 {
                guard stream.reconnection.maximumAttempts != 0 else {
                    finished = true
                    return
                }
                try await stream.reconnection.clock.sleep(for: delay)
            }
            connections += 1
            let response = try await stream.connect(lastEventID)
            if response.status == .noContent {
                response.body.discard()
                finished = true
                return
            }
            // WHATWG HTML, the EventSource constructor: "if res's status is
            // not 200, or if res's `Content-Type` is not `text/event-stream`,
            // then fail the connection" (and failing it does not
            // reconnect). A 205 or 299 that the request accepts is no stream.
            guard response.status == .ok else {
                response.body.discard()
                throw HTTPClientError.unacceptableStatus(response.head, body: Data())
            }
            let contentType = response.head.headerFields[.contentType]
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "text/event-stream" else {
                response.body.discard()
                throw HTTPClientError.unacceptableContentType(contentType, response.head)
            }
            failedAttempts = 0
            var iterator = response.body.serverSentEvents(
                maximumLineLength: stream.maximumLineLength,
                maximumEventLength: stream.maximumEventLength
            ).makeAsyncIterator()
            iterator.lastID = lastEventID
            iterator.dispatchedID = lastEventID
            events = iterator
        }

        /// Decides whether an error ends the stream or is one more reason to
        /// reconnect.
        private mutating func handle(_ error: any Error) throws {
            events = nil
            if error is CancellationError || Task.isCancelled {
                finished = true
                throw CancellationError()
            }
            let reconnectable: HTTPClientError
            switch error {
            case let error as HTTPClientError:
                switch error {
                case .transport, .timedOut:
                    reconnectable = error
                default:
                    // An HTTP error, a bad content type, a line too long: the end.
                    finished = true
                    throw error
                }
            default:
                // A transport's own error from a body that stopped arriving
                // (a dropped connection): bodies are not wrapped as sends are.
                reconnectable = .transport(underlying: error)
            }
            failedAttempts += 1
            if let maximum = stream.reconnection.maximumAttempts, failedAttempts > maximum {
                finished = true
                throw reconnectable
            }
        }
    }
}
