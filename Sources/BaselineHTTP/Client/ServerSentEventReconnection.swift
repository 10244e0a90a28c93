/// When and how often a ``ServerSentEventStream`` reconnects.
///
/// The stream waits ``delay`` before each reconnection, or what the server
/// last asked for with a `retry:` field, measured on ``clock``. Tests pass a
/// clock of their own to run the wait out without waiting for it.
public struct ServerSentEventReconnection: Sendable {
    /// The wait before reconnecting, until the server sends `retry:`.
    public var delay: Duration
    /// How many connection attempts in a row may fail (no connection, a
    /// timeout) before the stream gives up and throws the last error; `nil`
    /// keeps trying, as a browser's `EventSource` does. A connection that
    /// delivered its head resets the count.
    public var maximumAttempts: Int?
    /// Measures ``delay``.
    public var clock: any Clock<Duration>

    /// A policy; the defaults reconnect forever, 3 seconds apart.
    public init(
        delay: Duration = .seconds(3),
        maximumAttempts: Int? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.delay = delay
        self.maximumAttempts = maximumAttempts
        self.clock = clock
    }

    /// Never reconnects: the stream ends when the first connection does.
    public static var never: ServerSentEventReconnection {
        ServerSentEventReconnection(maximumAttempts: 0)
    }
}
