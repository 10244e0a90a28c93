import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

/// Answers every request with `status` and a body that never ends: it
/// reports each read as it starts, then waits until the read is cancelled.
final class StallingTransport: HTTPTransport {
    let status: HTTPResponse.Status
    /// One element per read of a body, as it starts.
    let reads: AsyncStream<Void>
    private let readsContinuation: AsyncStream<Void>.Continuation

    init(status: HTTPResponse.Status) {
        self.status = status
        (reads, readsContinuation) = AsyncStream.makeStream()
    }

    func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        (HTTPResponse(status: status), HTTPBody(StalledBody(reading: readsContinuation), length: nil))
    }

    struct StalledBody: AsyncSequence, Sendable {
        typealias Element = Data
        let reading: AsyncStream<Void>.Continuation

        func makeAsyncIterator() -> Iterator { Iterator(reading: reading) }

        struct Iterator: AsyncIteratorProtocol {
            let reading: AsyncStream<Void>.Continuation

            mutating func next() async throws -> Data? {
                reading.yield()
                // A stream nobody feeds: its iteration ends only when the task is cancelled.
                let (never, keptOpen) = AsyncStream<Void>.makeStream()
                for await _ in never {}
                keptOpen.finish()
                throw CancellationError()
            }
        }
    }
}

@Suite("HTTPClient: time limits on streamed responses", .timeLimit(.minutes(1)))
struct TimeLimitTests {
    /// A 500 whose body stalls: the status check reads the start of the
    /// body for the error, and that read is under the request's time limit.
    @Test(arguments: ["stream", "download"])
    func anErrorBodyThatStallsEndsAtTheTimeout(_ call: String) async throws {
        let transport = StallingTransport(status: .internalServerError)
        let clock = SleepRecordingClock()
        let client = HTTPClient(
            configuration: .init(baseURL: URL(string: "https://api.test")!, timeout: .seconds(5), clock: clock),
            transport: transport
        )
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        var timers = clock.sleeps.makeAsyncIterator()
        var reads = transport.reads.makeAsyncIterator()
        let calling = Task {
            if call == "stream" {
                _ = try await client.stream(Request<Void>.get("/events"))
            } else {
                _ = try await client.download(Request<Void>.get("/file.bin"), to: destination)
            }
        }
        #expect(await timers.next() == .seconds(5))
        // The head is in, and its error body is being read.
        await reads.next()

        await clock.advance(past: .seconds(5))
        // Should the call outlive the suite's time limit, the test's
        // cancellation ends it, so that the failure shows instead of a hang.
        _ = await withTaskCancellationHandler {
            await #expect {
                try await calling.value
            } throws: { error in
                guard case .timedOut(after: .seconds(5)) = error as? HTTPClientError else { return false }
                return true
            }
        } onCancel: {
            calling.cancel()
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
