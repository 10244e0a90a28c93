import Foundation

extension HTTPBody {
    /// Lets go of a response body that will not be used (a 503 about to be
    /// retried). A small one is read to its end, so the connection can serve
    /// the next request; a larger one (or one of unknown length) is stopped,
    /// which costs the connection but not the time to receive it. Failures
    /// do not matter here: the body is being thrown away.
    func releaseUnread(upTo limit: Int = 64 * 1024) async {
        guard !isReplayable else { return }
        if let length = knownLength, length <= limit {
            _ = try? await collect(upTo: limit)
        } else {
            discard()
        }
    }
}

extension Optional where Wrapped == HTTPBody {
    /// Whether a request with this body can be sent again: no body, or one
    /// held in memory or in a file.
    var isReplayable: Bool {
        self?.isReplayable ?? true
    }
}
