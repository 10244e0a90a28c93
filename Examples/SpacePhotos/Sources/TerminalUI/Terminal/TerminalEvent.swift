/// What happens at the terminal, for the ``RenderLoop``.
public enum TerminalEvent: Sendable {
    /// Input arrived: the events one read decoded, and when it was read
    /// (for the key-to-frame latency).
    case input([InputEvent], receivedAt: ContinuousClock.Instant)
    /// The terminal changed size (SIGWINCH).
    case resize(TerminalSize)
    /// The app must end: SIGTERM, SIGHUP, SIGINT sent from outside, or the
    /// terminal closed.
    case terminate(reason: String)
}
