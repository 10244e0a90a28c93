import Foundation

/// One event of a `text/event-stream` (Server-Sent Events).
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `"message"` when the server sent none.
    public var event: String
    /// The `data:` lines, joined with newlines.
    public var data: String
    /// The last `id:` seen on the stream, as the spec carries it over.
    public var id: String?
    /// The reconnection time the server asked for, if it did.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The data decoded as JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        let bytes = Data(data.utf8)
        do {
            return try decoder.decode(type, from: bytes)
        } catch {
            throw HTTPClientError.decodingFailed(error, body: bytes)
        }
    }
}

extension AsyncSequence where Self: Sendable, Element == Data {
    /// The chunks parsed as Server-Sent Events, as the WHATWG HTML standard
    /// describes the `text/event-stream` format: lines end at `\r\n`, `\n`
    /// or a lone `\r`; `data:` lines accumulate until a blank line
    /// dispatches the event; comments (`:`) are skipped; events without data
    /// are not dispatched.
    ///
    /// ```swift
    /// let stream = try await client.stream(Request<Void>.get("/events", query: [.init(name: "format", value: "sse")]))
    /// for try await event in stream.body.serverSentEvents() where event.event == "favorite" {
    ///     let update = try event.decode(PhotoMetadata.self)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - maximumLineLength: A line longer than this many bytes fails with
    ///     ``HTTPClientError/responseTooLarge(limit:)``, as in
    ///     ``HTTPBody/lines(maximumLength:)``.
    ///   - maximumEventLength: An event whose data (its `data:` values and
    ///     the newlines that join them, in UTF-8) grows past this many bytes
    ///     fails with ``HTTPClientError/responseTooLarge(limit:)`` as soon as
    ///     the line that crosses the limit arrives, without waiting for the
    ///     blank line: a server that sends `data:` lines without end cannot
    ///     grow memory without bound. 16 MiB by default, as
    ///     ``HTTPClient/Configuration/maximumResponseSize`` is.
    public func serverSentEvents(
        maximumLineLength: Int = 1024 * 1024,
        maximumEventLength: Int = 16 * 1024 * 1024
    ) -> AsyncServerSentEventSequence<Self> {
        // The format ends lines at `\r\n`, `\n` or a lone `\r`.
        AsyncServerSentEventSequence(
            lines: AsyncLineSequence(base: self, maximumLength: maximumLineLength, splitsAtCarriageReturn: true),
            maximumEventLength: maximumEventLength
        )
    }
}

/// Server-Sent Events parsed from a sequence of chunks.
public struct AsyncServerSentEventSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == Data {
    /// The type of the values the sequence produces.
    public typealias Element = ServerSentEvent
    let lines: AsyncLineSequence<Base>
    let maximumEventLength: Int

    /// An iterator over the sequence's elements.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), maximumEventLength: maximumEventLength)
    }

    /// Produces the sequence's elements, reading the underlying chunks as it needs them.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: AsyncLineSequence<Base>.Iterator
        let maximumEventLength: Int
        var lastID: String?
        var started = false
        /// The latest valid `retry:` of the stream, whether or not an event
        /// carrying it has been dispatched: what a reconnection waits.
        var reconnectionTime: Duration?
        /// The last event ID as of the last blank line: what a reconnection
        /// sends. An `id:` of an event the connection cut off before its
        /// blank line does not count (WHATWG HTML, "dispatch the event").
        var dispatchedID: String?

        init(lines: AsyncLineSequence<Base>.Iterator, maximumEventLength: Int) {
            self.lines = lines
            self.maximumEventLength = maximumEventLength
        }

        /// The next element, or `nil` at the end of the sequence.
        public mutating func next() async throws -> ServerSentEvent? {
            // The standard's event type and data buffers. The data buffer
            // gets each `data:` value and a newline; dispatching drops the
            // last newline, and an empty buffer means no data line came.
            var eventType = ""
            var data = ""
            var retry: Duration?
            while var line = try await lines.next() {
                if !started {
                    started = true
                    // A byte order mark may open the stream.
                    if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
                }
                if line.isEmpty {
                    dispatchedID = lastID
                    guard !data.isEmpty else {
                        eventType = ""
                        continue
                    }
                    data.unicodeScalars.removeLast()
                    // "If the event type buffer has a value other than the
                    // empty string, change the type of the newly created
                    // event to equal the value of the event type buffer":
                    // an empty `event:` field leaves the type "message".
                    return ServerSentEvent(
                        event: eventType.isEmpty ? "message" : eventType,
                        data: data,
                        id: lastID,
                        retry: retry
                    )
                }
                if line.hasPrefix(":") { continue }
                let field: Substring
                var value: Substring
                if let colon = line.firstIndex(of: ":") {
                    field = line[..<colon]
                    value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                } else {
                    field = line[...]
                    value = ""
                }
                switch field {
                case "event": eventType = String(value)
                case "data":
                    // The data so far, this value and the newline before it
                    // (the buffer's last newline is dropped on dispatch).
                    // Both counts are at most the limit plus one line, so
                    // the sum cannot overflow.
                    guard data.utf8.count + value.utf8.count <= maximumEventLength else {
                        throw HTTPClientError.responseTooLarge(limit: maximumEventLength)
                    }
                    data += value
                    data += "\n"
                case "id" where !value.contains("\0"): lastID = String(value)
                case "retry":
                    // Only ASCII digits, as the standard says: `Int` alone takes a sign.
                    if value.allSatisfy(\.isASCIIDigit), let milliseconds = Int(value) {
                        retry = .milliseconds(milliseconds)
                        reconnectionTime = retry
                    }
                default: break
                }
            }
            // The stream ended: an event without its blank line is discarded, as the spec says.
            return nil
        }
    }
}
