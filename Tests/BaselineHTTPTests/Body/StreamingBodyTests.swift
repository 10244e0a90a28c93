import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Streamed bodies: lines, NDJSON, Server-Sent Events", .timeLimit(.minutes(1)))
struct StreamingBodyTests {
    /// A body made of `chunks`, split where the network might split them.
    func body(_ chunks: String...) -> HTTPBody {
        let (stream, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        for chunk in chunks { feed.yield(Data(chunk.utf8)) }
        feed.finish()
        return HTTPBody(stream, length: nil)
    }

    @Test func collectJoinsTheChunks() async throws {
        #expect(try await body("ab", "", "cd", "e").collect(upTo: 5) == Data("abcde".utf8))
        #expect(try await body().collect(upTo: 5) == Data())
        #expect(try await body("", "").collect(upTo: 5) == Data())
    }

    @Test func collectStopsAtTheLimitAcrossChunks() async throws {
        await #expect {
            try await body("abc", "def").collect(upTo: 5)
        } throws: { error in
            if case .responseTooLarge(limit: 5) = error as? HTTPClientError { true } else { false }
        }
        await #expect(throws: HTTPClientError.self) { try await body("abcdef").collect(upTo: 5) }
    }

    @Test func aSingleChunkComesBackIndexedFromZero() async throws {
        // One chunk is returned without copying, unless it is a slice of a
        // larger buffer: callers may index the body from 0.
        let buffer = Data("0123456789".utf8)
        let slice = buffer[4...]
        let (stream, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(slice)
        feed.finish()
        let collected = try await HTTPBody(stream, length: nil).collect(upTo: 100)
        #expect(collected == Data("456789".utf8))
        #expect(collected.startIndex == 0)
    }

    @Test func linesJoinChunksAndSplitOnNewlines() async throws {
        var lines: [String] = []
        for try await line in body("al", "pha\nbe", "ta\r\n", "\ngam", "ma").lines() { lines.append(line) }
        #expect(lines == ["alpha", "beta", "", "gamma"])
    }

    @Test func aLineLongerThanTheLimitFails() async throws {
        await #expect(throws: HTTPClientError.self) {
            for try await _ in body(String(repeating: "x", count: 100), "y").lines(maximumLength: 64) {}
        }
    }

    @Test func aLongLineFailsAlsoWhenItArrivesInOneChunk() async throws {
        // Found by Fuzz/run Lines: a whole line in one chunk skipped the limit.
        await #expect(throws: HTTPClientError.self) {
            for try await _ in body(String(repeating: "x", count: 100) + "\ny\n").lines(maximumLength: 64) {}
        }
        var lines: [String] = []
        for try await line in body(String(repeating: "x", count: 64) + "\ny").lines(maximumLength: 64) {
            lines.append(line)
        }
        #expect(lines == [String(repeating: "x", count: 64), "y"])
    }

    @Test func bytesFlattenChunks() async throws {
        var bytes: [UInt8] = []
        for try await byte in body("ab", "", "c").bytes { bytes.append(byte) }
        #expect(bytes == Array("abc".utf8))
    }

    struct Event: Decodable, Equatable {
        var id: Int
        var favoriteCount: Int
    }

    @Test func jsonLinesDecodeOneValuePerLineSkippingBlankOnes() async throws {
        var events: [Event] = []
        let chunks = body(#"{"id":1,"favoriteCount":3}"#, "\n\n", #"{"id":2,"#, #""favoriteCount":5}"#, "\n")
        for try await event in chunks.jsonLines(of: Event.self) { events.append(event) }
        #expect(events == [Event(id: 1, favoriteCount: 3), Event(id: 2, favoriteCount: 5)])
    }

    @Test func aMalformedLineFailsWithTheLineInTheError() async throws {
        var received: [Event] = []
        do {
            for try await event in body(#"{"id":1,"favoriteCount":3}"#, "\n", "{oops\n").jsonLines(of: Event.self) {
                received.append(event)
            }
            Issue.record("expected a decoding failure")
        } catch let HTTPClientError.decodingFailed(_, excerpt) {
            #expect(excerpt == "{oops")
        }
        #expect(received == [Event(id: 1, favoriteCount: 3)])
    }

    @Test func serverSentEventsFollowTheStandard() async throws {
        let stream = body(
            "\u{FEFF}: a comment\n",
            "event: favorite\nid: 7\ndata: {\"a\":1}\ndata: second line\n\n",
            "data:no space\nretry: 1500\n\n",
            "event: ignored-without-data\n\n",
            "data: unterminated"
        )
        var events: [ServerSentEvent] = []
        for try await event in stream.serverSentEvents() { events.append(event) }
        #expect(
            events == [
                ServerSentEvent(event: "favorite", data: "{\"a\":1}\nsecond line", id: "7"),
                ServerSentEvent(event: "message", data: "no space", id: "7", retry: .milliseconds(1500)),
            ]
        )
    }

    @Test func aRetryWithASignIsIgnored() async throws {
        // Found by Fuzz/run ServerSentEvents: `Int` took "-1" as a retry time.
        var events: [ServerSentEvent] = []
        for try await event in body("retry: -1\ndata: a\n\nretry: +2\ndata: b\n\nretry: 3\ndata: c\n\n")
            .serverSentEvents()
        {
            events.append(event)
        }
        #expect(events.map(\.retry) == [nil, nil, .milliseconds(3)])
    }

    @Test func serverSentEventLinesEndAtALoneCarriageReturnToo() async throws {
        // Found by Fuzz/run ServerSentEvents: a lone `\r` was kept in the
        // line, so "a\r\r\n" merged two events into one.
        func events(_ chunks: String...) async throws -> [String] {
            let (stream, feed) = AsyncThrowingStream.makeStream(of: Data.self)
            for chunk in chunks { feed.yield(Data(chunk.utf8)) }
            feed.finish()
            var data: [String] = []
            for try await event in HTTPBody(stream, length: nil).serverSentEvents() { data.append(event.data) }
            return data
        }
        #expect(try await events("data: a\r\rdata: b\r\n\r\n") == ["a", "b"])
        #expect(try await events("data: a\rdata: b\r\r") == ["a\nb"])
        // A `\r\n` cut between two chunks is one line end, not two.
        #expect(try await events("data: a\r", "\ndata: b\n\n") == ["a\nb"])
        #expect(try await events("data: a\r", "\r", "\ndata: b\n\n") == ["a", "b"])
        // Plain lines still end only at `\n`.
        var lines: [String] = []
        for try await line in body("a\rb\r\n", "c").lines() { lines.append(line) }
        #expect(lines == ["a\rb", "c"])
    }

    /// WHATWG HTML §9.2.6, dispatching an event: "Initialize event's type
    /// attribute to "message" [...] If the event type buffer has a value
    /// other than the empty string, change the type of the newly created
    /// event to equal the value of the event type buffer."
    @Test func anEmptyEventFieldDispatchesAMessage() async throws {
        var events: [ServerSentEvent] = []
        for try await event in body("event:\ndata: a\n\nevent\ndata: b\n\nevent: custom\nevent: \ndata: c\n\n")
            .serverSentEvents()
        {
            events.append(event)
        }
        #expect(events.map(\.event) == ["message", "message", "message"])
        #expect(events.map(\.data) == ["a", "b", "c"])
    }

    @Test func anEventLimitCountsTheDataLinesAndTheNewlinesBetweenThem() async throws {
        func outcome(_ limit: Int, _ chunks: String...) async -> Result<[String], any Error> {
            let (stream, feed) = AsyncThrowingStream.makeStream(of: Data.self)
            for chunk in chunks { feed.yield(Data(chunk.utf8)) }
            feed.finish()
            var data: [String] = []
            do {
                for try await event in HTTPBody(stream, length: nil).serverSentEvents(maximumEventLength: limit) {
                    data.append(event.data)
                }
                return .success(data)
            } catch {
                return .failure(error)
            }
        }
        // "abc\ndef" is 7 bytes; each event is counted on its own.
        #expect(try await outcome(7, "data: abc\ndata: def\n\n", "data: 1234567\n\n").get() == ["abc\ndef", "1234567"])
        // "é" is two bytes of UTF-8.
        #expect(try await outcome(2, "data: é\n\n").get() == ["é"])
        // One byte over, in one line or across several, however the chunks cut it.
        for failing in [
            await outcome(6, "data: abc\ndata: def\n\n"),
            await outcome(6, "data: abc\n", "data: d", "ef\n\n"),
            await outcome(6, "data: 1234567\n\n"),
            await outcome(6, "data\ndata\ndata\ndata\ndata\ndata\ndata\ndata\n\n"),
        ] {
            guard case .failure(let error) = failing, case .responseTooLarge(limit: 6) = error as? HTTPClientError
            else {
                Issue.record("expected the event limit, got \(failing)")
                continue
            }
        }
    }

    @Test func dataLinesWithoutABlankLineFailAtTheLimitInsteadOfGrowing() async throws {
        // A server that never ends its event: the stream never ends either,
        // so the failure must come from the limit, not from the end.
        let endless = EndlessBody(
            repeating: Data("data: \(String(repeating: "x", count: 1000))\n".utf8),
            safetyStop: 1000
        )
        var failure: (any Error)?
        do {
            for try await _ in endless.chunks.serverSentEvents(maximumEventLength: 64 * 1024) {}
        } catch {
            failure = error
        }
        guard case .responseTooLarge(limit: 64 * 1024) = failure as? HTTPClientError else {
            Issue.record("expected the event limit, got \(String(describing: failure))")
            return
        }
        // The 66th line of 1,000 bytes takes the data over 64 KiB: no more is read.
        #expect(endless.chunksRead == 66)
    }

    @Test func linesLeftInABufferJoinTheNextChunks() async throws {
        // Lines handed out from the middle of a chunk, then the unfinished
        // line completed by later chunks, empty chunks and slices included.
        let buffer = Data("xxa\nb\nc".utf8)
        let (stream, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        for chunk in [buffer[2...], Data(), Data("d\ne".utf8), Data("f".utf8), Data("\n\ng\r\n".utf8), Data("h".utf8)] {
            feed.yield(chunk)
        }
        feed.finish()
        var lines: [String] = []
        for try await line in HTTPBody(stream, length: nil).lines(maximumLength: 3) { lines.append(line) }
        #expect(lines == ["a", "b", "cd", "ef", "", "g", "h"])
        // 64 KiB of newlines in one chunk: as many empty lines.
        var count = 0
        for try await line in body(String(repeating: "\n", count: 64 * 1024)).lines() {
            #expect(line.isEmpty)
            count += 1
        }
        #expect(count == 64 * 1024)
    }

    @Test func aStreamedBodyCanBeReadOnce() async throws {
        let once = body("a")
        _ = try await once.collect(upTo: 10)
        await #expect(throws: HTTPBodyError.alreadyConsumed) { try await once.collect(upTo: 10) }
    }

    @Test func aBodyInMemoryOrInAFileCanBeReadAgain() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("body.txt")
        try Data(repeating: 7, count: 200_000).write(to: file)
        let fromFile = try HTTPBody(contentsOf: file)
        #expect(fromFile.isReplayable && fromFile.knownLength == 200_000)
        #expect(try await fromFile.collect(upTo: .max) == Data(repeating: 7, count: 200_000))
        #expect(try await fromFile.collect(upTo: .max).count == 200_000)
        #expect(HTTPBody("x").isReplayable)
        #expect(!body("x").isReplayable)
    }

    @Test func aMissingFileIsAnInvalidRequest() {
        #expect(throws: HTTPClientError.self) { try HTTPBody(contentsOf: URL(fileURLWithPath: "/nonexistent/file")) }
    }

    /// Chunks handed out by the test, one `ControllableCall` per read; the
    /// iterator reports when it is released.
    struct HandedChunks: AsyncSequence, Sendable {
        let source = ControllableCall<Void, Data?>()
        let released: AsyncStream<Void>
        let releasedSink: AsyncStream<Void>.Continuation

        init() {
            (released, releasedSink) = AsyncStream.makeStream(of: Void.self)
        }

        final class ReleaseReporter: Sendable {
            let sink: AsyncStream<Void>.Continuation
            init(_ sink: AsyncStream<Void>.Continuation) { self.sink = sink }
            deinit {
                sink.yield()
                sink.finish()
            }
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            let source: ControllableCall<Void, Data?>
            let reporter: ReleaseReporter
            mutating func next() async throws -> Data? { try await source() }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(source: source, reporter: ReleaseReporter(releasedSink))
        }
    }

    @Test func discardingWhileAReadWaitsEndsTheStreamAfterThatRead() async throws {
        let chunks = HandedChunks()
        let body = HTTPBody(chunks, length: nil)
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            let first = try await iterator.next()
            let second = try await iterator.next()
            return (first, second)
        }
        let read = try await chunks.source.nextCall()
        // From another task, while the read waits (a retry dropping the body).
        body.discard()
        #expect(read.resume(returning: Data("late".utf8)))

        let (first, second) = try await reader.value
        #expect(first == Data("late".utf8))
        #expect(second == nil)
        // The source was not asked again, and its iterator was let go.
        #expect(chunks.source.callCount == 1)
        var released = chunks.released.makeAsyncIterator()
        #expect(await released.next() != nil)
    }

    @Test func cancellingTheReaderSurfacesCancellationError() async throws {
        let (stream, _) = AsyncThrowingStream.makeStream(of: Data.self)
        let body = HTTPBody(stream, length: nil)
        let reader = Task { try await body.collect(upTo: .max) }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }
}
