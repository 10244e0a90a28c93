import BaselineCombine
import BaselineConcurrency
import Testing

@MainActor
@Suite("Combine bridges", .timeLimit(.minutes(1)))
struct CombineBridgeTests {
    struct Failure: Error, Equatable {}

    @Test func firstValueReturnsTheFirstValue() async throws {
        #expect(try await [1, 2, 3].publisher.firstValue() == 1)
        #expect(try await Just("only").firstValue() == "only")
    }

    @Test func firstValueThrowsThePublishersFailure() async {
        await #expect(throws: Failure()) {
            try await Fail<Int, Failure>(error: Failure()).firstValue()
        }
    }

    @Test func firstValueOfAnEmptyPublisherIsAClearError() async {
        await #expect(throws: PublisherBridgeError.finishedWithoutValue) {
            try await Empty<Int, Never>().firstValue()
        }
    }

    @Test func aValueSentLaterResumesOnce() async throws {
        let subject = PassthroughSubject<Int, Never>()
        let (subscribed, subscribedSink) = AsyncStream.makeStream(of: Void.self)
        let waiting = Task {
            try await subject.handleEvents(receiveSubscription: { _ in subscribedSink.yield() }).firstValue()
        }
        var iterator = subscribed.makeAsyncIterator()
        _ = await iterator.next()
        subject.send(7)
        subject.send(8)
        subject.send(completion: .finished)
        #expect(try await waiting.value == 7)
    }

    @Test func cancellingTheTaskCancelsTheSubscription() async throws {
        let subject = PassthroughSubject<Int, Never>()
        let (events, eventSink) = AsyncStream.makeStream(of: String.self)
        let waiting = Task {
            try await subject
                .handleEvents(
                    receiveSubscription: { _ in eventSink.yield("subscribed") },
                    receiveCancel: { eventSink.yield("cancelled") }
                )
                .firstValue()
        }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == "subscribed")
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(await iterator.next() == "cancelled")
    }

    @Test func asyncValuesDeliversEveryValueThenFinishes() async throws {
        var collected: [Int] = []
        for try await value in [1, 2, 3].publisher.asyncValues {
            collected.append(value)
        }
        #expect(collected == [1, 2, 3])
    }

    @Test func asyncValuesThrowsTheFailure() async {
        await #expect(throws: Failure()) {
            for try await _ in Fail<Int, Failure>(error: Failure()).asyncValues {}
        }
    }

    @Test func anAsyncSequenceBecomesAPublisherThatHonoursDemand() async throws {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...5 { continuation.yield(value) }
            continuation.finish()
        }
        let values = try await stream.publisher.collect().firstValue()
        #expect(values == [1, 2, 3, 4, 5])
        let firstTwo = try await AsyncStream<Int> { c in
            for value in 1...5 { c.yield(value) }
            c.finish()
        }
        .publisher.prefix(2).collect().firstValue()
        #expect(firstTwo == [1, 2])
    }

    @Test func aTaskPublisherRunsTheOperationAndEmitsOnce() async throws {
        let runs = LockedValue(0)
        let publisher = TaskPublisher { () async throws -> String in
            runs.withLock { $0 += 1 }
            return "done"
        }
        #expect(try await publisher.firstValue() == "done")
        #expect(try await publisher.collect().firstValue() == ["done"])
        #expect(runs.current == 2)  // once per subscriber
        await #expect(throws: Failure()) { try await TaskPublisher<Int> { throw Failure() }.firstValue() }
    }

    @Test func cancellingATaskPublishersSubscriptionCancelsItsTask() async throws {
        let (started, startedSink) = AsyncStream.makeStream(of: Void.self)
        let (ended, endedSink) = AsyncStream.makeStream(of: Bool.self)
        let publisher = TaskPublisher { () async throws -> Int in
            startedSink.yield()
            await withTaskCancellationHandler {
                await AsyncStream<Void> { _ in }.first { _ in true }
            } onCancel: {
                endedSink.yield(true)
            }
            return 0
        }
        let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        var startedIterator = started.makeAsyncIterator()
        _ = await startedIterator.next()
        cancellable.cancel()
        var endedIterator = ended.makeAsyncIterator()
        #expect(await endedIterator.next() == true)
    }
}
