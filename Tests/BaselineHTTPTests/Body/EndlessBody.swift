import BaselineConcurrency
import Foundation

/// A body that never ends by itself: `opening`, then `repeating` again and
/// again, as a hostile server can send. It counts the chunks read, and
/// after `safetyStop` of them throws ``Exhausted``, so that a reader that
/// never stops fails its test instead of running (and growing) forever.
struct EndlessBody: Sendable {
    /// Thrown when a reader took `safetyStop` chunks: it would have read forever.
    struct Exhausted: Error {}

    let chunks: AsyncThrowingStream<Data, any Error>
    private let counter: LockedValue<Int>

    /// How many chunks were read, `opening` included.
    var chunksRead: Int { counter.current }

    init(opening: Data = Data(), repeating chunk: Data, safetyStop: Int) {
        let counter = LockedValue(0)
        self.counter = counter
        chunks = AsyncThrowingStream {
            let index = counter.withLock { count in
                defer { count += 1 }
                return count
            }
            if index == 0, !opening.isEmpty { return opening }
            guard index < safetyStop else { throw Exhausted() }
            return chunk
        }
    }
}
