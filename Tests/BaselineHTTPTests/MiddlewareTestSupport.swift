import BaselineConcurrency
import BaselineHTTP
import Clocks
import Foundation
import HTTPTypes

/// Sends `request` through `middleware` to `transport`, as `HTTPClient` chains
/// them, without the client's status check, and reads the response body.
func send(
    _ request: HTTPRequest,
    body: HTTPBody? = nil,
    through middleware: [any HTTPMiddleware],
    to transport: some HTTPTransport
) async throws -> (HTTPResponse, Data) {
    let send: HTTPMiddleware.Next = { request, body in try await transport.send(request, body: body) }
    let chain = middleware.reversed().reduce(send) { next, step in
        { request, body in try await step.intercept(request, body: body, next: next) }
    }
    let (response, responseBody) = try await chain(request, body)
    return (response, try await responseBody.collect(upTo: .max))
}

/// A request to the stub API host.
func apiRequest(_ method: HTTPRequest.Method = .get, _ path: String, headerFields: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: method, scheme: "https", authority: "api.test", path: path, headerFields: headerFields)
}

/// A body that can be read once, as a network stream is.
func streamedBody(_ text: String) -> HTTPBody {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    continuation.yield(Data(text.utf8))
    continuation.finish()
    return HTTPBody(stream, length: nil)
}

/// A `TestClock` that reports each sleep as it starts, so a test can wait for
/// the code under test to reach its sleep, check the duration, and let it end.
final class SleepRecordingClock: Clock {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Duration>.Instant

    let base = TestClock()
    /// The duration of every sleep started so far.
    let recorded = LockedValue<[Duration]>([])
    private let started: AsyncStream<Duration>
    private let startedContinuation: AsyncStream<Duration>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream()
    }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    // The Clock requirement itself: it records the wait and defers to
    // TestClock, which only advances when the test says.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {  // sleep-ok: a TestClock's
        let duration = base.now.duration(to: deadline)
        recorded.withLock { $0.append(duration) }
        startedContinuation.yield(duration)
        try await base.sleep(until: deadline, tolerance: tolerance)  // sleep-ok: ended by the test's advance
    }

    /// The sleeps as they start, in order.
    var sleeps: AsyncStream<Duration> { started }

    /// Ends a sleep of `duration` that has started. Advances a nanosecond
    /// past it: the sleeper may not have reached the test clock yet, and a
    /// deadline already passed ends its sleep at once, where one equal to
    /// `now` would wait for a further advance.
    func advance(past duration: Duration) async {
        await base.advance(by: duration + .nanoseconds(1))
    }
}

/// A date that a test sets, for code that takes `now`.
final class TestDate: Sendable {
    private let value: LockedValue<Date>

    init(_ date: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        value = LockedValue(date)
    }

    var now: Date { value.current }

    func advance(by seconds: TimeInterval) {
        value.withLock { $0 += seconds }
    }
}

/// A thread-safe counter for responders.
final class LockedValueCounter: Sendable {
    private let count = LockedValue(0)

    /// Adds one and returns the new count.
    func increment() -> Int {
        count.withLock { count -> Int in
            count += 1
            return count
        }
    }
}
