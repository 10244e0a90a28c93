/// A streamed body's reader fell so far behind a transfer that cannot be
/// paused that the bytes waiting for it passed the transport's limit, so the
/// transfer was stopped.
///
/// It arrives as `HTTPClientError.transport(underlying:)`, after the bytes
/// received before it. Only ``URLSessionTransport`` on Linux raises it:
/// FoundationNetworking cannot pause a transfer (its `suspend()` drops the
/// connection, and `resume()` asks for the whole body again), so a reader
/// slower than the network would otherwise hold the rest of the body in memory.
/// Read faster (hand chunks to a file, not to slow work), or use
/// `AsyncHTTPClientTransport`, which pauses the connection instead.
public struct ReaderFellBehind: Error, Sendable, Equatable, CustomStringConvertible {
    /// How many unread bytes the transport holds at most.
    public let limit: Int

    /// A report for `limit` unread bytes.
    public init(limit: Int) {
        self.limit = limit
    }

    /// What happened, and what to do about it.
    public var description: String {
        "The body's reader fell more than \(limit) bytes behind a transfer that cannot pause "
            + "(URLSession on Linux), so the transfer was stopped; read faster, or use AsyncHTTPClientTransport"
    }
}
