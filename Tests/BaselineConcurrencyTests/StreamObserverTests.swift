import BaselineConcurrency
import Testing

@Suite("StreamObserver", .timeLimit(.minutes(1)))
struct StreamObserverTests {
    /// A stream the test feeds, which reports when its consumer goes away.
    struct Source {
        let stream: AsyncStream<Int>
        let sink: AsyncStream<Int>.Continuation
        let terminated: AsyncStream<Void>

        init() {
            (stream, sink) = AsyncStream.makeStream(of: Int.self)
            let (terminated, terminatedSink) = AsyncStream.makeStream(of: Void.self)
            self.terminated = terminated
            sink.onTermination = { _ in
                terminatedSink.yield()
                terminatedSink.finish()
            }
        }
    }

    @Test func handlesElementsUntilStoppedAndStopWaitsForTheEnd() async throws {
        let source = Source()
        let (handled, handledSink) = AsyncStream.makeStream(of: Int.self)
        let observer = StreamObserver(observing: { source.stream }) { handledSink.yield($0) }
        #expect(!observer.isStarted)
        observer.start()
        observer.start()  // idempotent: still one consumer
        #expect(observer.isStarted)

        var received = handled.makeAsyncIterator()
        source.sink.yield(1)
        #expect(await received.next() == 1)
        source.sink.yield(2)
        #expect(await received.next() == 2)

        await observer.stop()
        #expect(!observer.isStarted)
        var terminated = source.terminated.makeAsyncIterator()
        #expect(await terminated.next() != nil)  // the stream was let go
    }

    @Test func releasingTheObserverStopsIt() async throws {
        let source = Source()
        let (handled, handledSink) = AsyncStream.makeStream(of: Int.self)
        var observer: StreamObserver? = StreamObserver(observing: { source.stream }) { handledSink.yield($0) }
        observer?.start()
        var received = handled.makeAsyncIterator()
        source.sink.yield(1)
        #expect(await received.next() == 1)

        observer = nil  // the owner goes away

        var terminated = source.terminated.makeAsyncIterator()
        #expect(await terminated.next() != nil)
    }

    @Test func anErrorEndingTheSequenceIsReported() async throws {
        struct Broken: Error {}
        let (errors, errorSink) = AsyncStream.makeStream(of: String.self)
        let observer = StreamObserver(
            observing: { AsyncThrowingStream<Int, any Error> { $0.finish(throwing: Broken()) } },
            onElement: { _ in },
            onError: { errorSink.yield("\(type(of: $0))") }
        )
        observer.start()
        var reported = errors.makeAsyncIterator()
        #expect(await reported.next() == "Broken")
    }

    @Test func canBeStartedAgainAfterStopping() async throws {
        let (handled, handledSink) = AsyncStream.makeStream(of: Int.self)
        let observer = StreamObserver(observing: { AsyncStream<Int> { $0.yield(7) } }) { handledSink.yield($0) }
        var received = handled.makeAsyncIterator()
        observer.start()
        #expect(await received.next() == 7)
        await observer.stop()
        observer.start()
        #expect(await received.next() == 7)
        await observer.stop()
    }
}
