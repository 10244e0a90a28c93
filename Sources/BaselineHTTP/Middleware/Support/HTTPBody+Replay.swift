import Foundation

extension HTTPBody {
    /// Whether the body can be sent again: only a body held whole can. A
    /// streamed body is read once, so a retry would send a drained stream.
    var isReplayable: Bool {
        if case .buffered = storage { true } else { false }
    }

    /// Reads and drops what is left of a response body that will not be used
    /// (a 503 about to be retried), so a streaming transport can finish the
    /// exchange. At most `limit` bytes are read; a larger body is simply
    /// released, which ends its stream. Failures do not matter here: the body
    /// is being thrown away.
    func releaseUnread(upTo limit: Int = 64 * 1024) async {
        guard !isReplayable else { return }
        _ = try? await collect(upTo: limit)
    }
}

extension Optional where Wrapped == HTTPBody {
    /// Whether a request with this body can be sent again: no body, or one held whole.
    var isReplayable: Bool {
        self?.isReplayable ?? true
    }
}
