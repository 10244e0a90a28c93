/// What happens at the terminal, for the ``RenderLoop``.
public enum TerminalEvent: Sendable {
    /// Input arrived: the events one read decoded, and when it was read
    /// (for the key-to-frame latency).
    case input([InputEvent], receivedAt: ContinuousClock.Instant)
    /// The terminal changed size (SIGWINCH).
    case resize(TerminalSize)
    /// SIGTSTP from outside (`kill -TSTP`): the app should suspend as for Ctrl-Z.
    case suspend
    /// The app must end: SIGTERM, SIGHUP, SIGINT sent from outside, or the
    /// terminal closed or failed.
    case terminate(reason: String)
}
