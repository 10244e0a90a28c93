import Testing

@testable import SpacePhotosServer

/// ``SyncCursorBroadcast``: each stream holds a member's latest cursor only.
@Suite("The sync cursor broadcast", .timeLimit(.minutes(2)))
struct SyncCursorBroadcastTests {
    @Test func aReaderThatFallsBehindHoldsOneCursorPerMember() async {
        let broadcast = SyncCursorBroadcast()
        let changes = broadcast.stream()
        let members = ["astro", "luna", "sol"]
        for push in 1...10_000 {
            // Out of order too: a push that finished late brings a smaller cursor.
            let cursor = Int64(push % 7 == 0 ? push / 2 : push)
            broadcast.publish(SyncCursorChange(member: members[push % 3], cursor: cursor))
        }
        // What the stream held is read to its end.
        broadcast.finish()
        var seen: [SyncCursorChange] = []
        for await change in changes { seen.append(change) }
        // Each member's largest cursor, in the order members first came.
        #expect(
            seen == [
                SyncCursorChange(member: "luna", cursor: 10_000),
                SyncCursorChange(member: "sol", cursor: 9_998),
                SyncCursorChange(member: "astro", cursor: 9_999),
            ]
        )
    }

    @Test func aWaitingReaderGetsEachChangeAsItComes() async {
        let broadcast = SyncCursorBroadcast()
        var first = broadcast.stream().makeAsyncIterator()
        var second = broadcast.stream().makeAsyncIterator()
        broadcast.publish(SyncCursorChange(member: "astro", cursor: 1))
        #expect(await first.next() == SyncCursorChange(member: "astro", cursor: 1))
        broadcast.publish(SyncCursorChange(member: "astro", cursor: 2))
        #expect(await first.next() == SyncCursorChange(member: "astro", cursor: 2))
        // The other stream kept astro's latest alone.
        #expect(await second.next() == SyncCursorChange(member: "astro", cursor: 2))
        broadcast.finish()
        #expect(await first.next() == nil)
        // A stream made after the end ends at once.
        var late = broadcast.stream().makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test func aCancelledReaderStops() async {
        let broadcast = SyncCursorBroadcast()
        let changes = broadcast.stream()
        let (started, startedSink) = AsyncStream.makeStream(of: Void.self)
        let reading = Task {
            var iterator = changes.makeAsyncIterator()
            startedSink.yield()
            return await iterator.next()
        }
        var events = started.makeAsyncIterator()
        await events.next()
        reading.cancel()
        #expect(await reading.value == nil)
    }
}
