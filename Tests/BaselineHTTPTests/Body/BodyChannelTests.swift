import BaselineConcurrency
import Foundation
import Testing

@testable import BaselineHTTP

@Suite("BodyChannel: the URLSession delegate's hand-over to the reader", .timeLimit(.minutes(1)))
struct BodyChannelTests {
    final class Producer: Sendable {
        let pauses = LockedValue<[Bool]>([])
        let cancels = LockedValue(0)

        func channel(highWater: Int = 10, lowWater: Int = 4) -> BodyChannel {
            BodyChannel(
                highWater: highWater,
                lowWater: lowWater,
                flowControl: { pause in self.pauses.withLock { $0.append(pause) } },
                onCancel: { self.cancels.withLock { $0 += 1 } }
            )
        }
    }

    @Test func chunksArriveInOrderThenTheEnd() async throws {
        let channel = Producer().channel()
        channel.yield(Data("a".utf8))
        channel.yield(Data("b".utf8))
        channel.finish()
        #expect(try await channel.next() == Data("a".utf8))
        #expect(try await channel.next() == Data("b".utf8))
        #expect(try await channel.next() == nil)
    }

    @Test func aProducerThatCannotPauseIsStoppedWhenTheReaderFallsTooFarBehind() async throws {
        let producer = Producer()
        let channel = BodyChannel(unreadLimit: 10, onCancel: { producer.cancels.withLock { $0 += 1 } })
        channel.yield(Data("123456".utf8))
        #expect(producer.cancels.current == 0)
        channel.yield(Data("789012".utf8))
        #expect(producer.cancels.current == 1)
        // Later chunks and the transport's own end are ignored; what came first is still read.
        channel.yield(Data("more".utf8))
        channel.finish(throwing: CancellationError())
        #expect(try await channel.next() == Data("123456".utf8))
        #expect(try await channel.next() == Data("789012".utf8))
        await #expect {
            try await channel.next()
        } throws: { error in
            guard case let .transport(underlying) = error as? HTTPClientError else { return false }
            return underlying as? ReaderFellBehind == ReaderFellBehind(limit: 10)
        }
        #expect(producer.cancels.current == 1)
    }

    @Test func aReaderThatKeepsUpIsNeverStopped() async throws {
        let producer = Producer()
        let channel = BodyChannel(unreadLimit: 10, onCancel: { producer.cancels.withLock { $0 += 1 } })
        for _ in 0..<10 {
            channel.yield(Data("12345678".utf8))
            #expect(try await channel.next() == Data("12345678".utf8))
        }
        channel.finish()
        #expect(try await channel.next() == nil)
        #expect(producer.cancels.current == 0)
    }

    @Test func aWaitingReaderGetsTheNextChunk() async throws {
        let channel = Producer().channel()
        async let chunk = channel.next()
        channel.yield(Data("late".utf8))
        #expect(try await chunk == Data("late".utf8))
    }

    @Test func pausesTheProducerAboveHighWaterAndResumesBelowLowWater() async throws {
        let producer = Producer()
        let channel = producer.channel(highWater: 10, lowWater: 4)
        for _ in 0..<4 { channel.yield(Data(repeating: 0, count: 3)) }  // 12 bytes queued
        #expect(producer.pauses.current == [true])
        _ = try await channel.next()  // 9 left: still above low water
        _ = try await channel.next()  // 6 left
        #expect(producer.pauses.current == [true])
        _ = try await channel.next()  // 3 left: below low water
        #expect(producer.pauses.current == [true, false])
    }

    @Test func aTransferErrorReachesTheReaderAfterTheQueuedChunks() async throws {
        let channel = Producer().channel()
        channel.yield(Data("a".utf8))
        channel.finish(throwing: URLError(.networkConnectionLost))
        #expect(try await channel.next() == Data("a".utf8))
        await #expect(throws: URLError.self) { try await channel.next() }
    }

    @Test func cancellingTheReaderStopsTheProducerOnce() async throws {
        let producer = Producer()
        let channel = producer.channel()
        let reader = Task { try await channel.next() }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        channel.cancel()
        #expect(producer.cancels.current == 1)
        channel.yield(Data("ignored".utf8))
        await #expect(throws: CancellationError.self) { try await channel.next() }
    }

    @Test func aCancelledReaderGetsNoQueuedChunk() async throws {
        // Chunks waiting in the queue are taken without suspending; a
        // cancelled reader must still stop there, and stop the producer.
        let producer = Producer()
        let channel = producer.channel()
        channel.yield(Data("queued".utf8))
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await channel.next()
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
        #expect(producer.cancels.current == 1)
    }

    @Test func abandoningAStreamedBodyStopsTheProducer() async throws {
        let producer = Producer()
        let channel = producer.channel()
        channel.yield(Data("first\nsecond\n".utf8))
        for try await line in HTTPBody(channel: channel, length: nil).lines() {
            #expect(line == "first")
            break
        }
        #expect(producer.cancels.current == 1)
    }

    @Test func aBodyReadToItsEndDoesNotCancel() async throws {
        let producer = Producer()
        let channel = producer.channel()
        channel.yield(Data("all".utf8))
        channel.finish()
        #expect(try await HTTPBody(channel: channel, length: 3).collect(upTo: 10) == Data("all".utf8))
        #expect(producer.cancels.current == 0)
    }
}
