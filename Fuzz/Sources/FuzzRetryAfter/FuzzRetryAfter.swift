import Foundation
import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// Properties: a wait is never negative; delay-seconds give exactly their
// number (or "a very long time"); a date gives the time until it from now.
// Through `RetryMiddleware`, with the text as a 503's `Retry-After` field
// (as `HTTPFields` keeps it): a wait it asks for up to the policy's
// maximum is waited exactly, then the request is sent again; a longer one
// returns the 503 without waiting; a field that is neither form leaves
// the jittered backoff, within its ceiling.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    if let delay = RetryAfter.delay(text, now: now) {
        require(delay >= .zero, "\(text) asks for a negative wait \(delay)")
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy({ ("0"..."9").contains($0) }) {
            require(delay == .seconds(Int(trimmed) ?? .max), "\(text) gives \(delay)")
        } else if let date = HTTPDate.parse(trimmed) {
            require(delay == .seconds(max(0, date.timeIntervalSince(now))), "\(text) gives \(delay)")
        } else {
            require(false, "\(text) is neither form but gives \(delay)")
        }
    }
    checkMiddleware(text, now: now)
    return 0
}

/// One 503 with `text` as its `Retry-After`, then a 200, through the middleware.
func checkMiddleware(_ text: String, now: Date) {
    let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .seconds(1), maximumRetryAfter: .seconds(60))
    let clock = RecordingClock()
    let middleware = RetryMiddleware(policy: policy, clock: clock, random: { 1 }, now: { now })
    let field = HTTPField(name: .retryAfter, value: text)
    let sent = Counter()
    let outcome = synchronously {
        try await middleware.intercept(
            HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/"),
            body: nil
        ) {
            _,
            _ in
            let status: HTTPResponse.Status = sent.increment() == 1 ? .serviceUnavailable : .ok
            return (HTTPResponse(status: status, headerFields: HTTPFields([field])), HTTPBody(Data()))
        }
    }
    guard case .success(let (response, _)) = outcome else {
        require(false, "the middleware failed: \(outcome)")
        return
    }
    // What the middleware saw: the field's value as HTTPFields keeps it.
    let asked = RetryAfter.delay(field.value, now: now)
    switch asked {
    case .some(let wait) where wait <= policy.maximumRetryAfter:
        require(clock.waits == [wait], "\(text.debugDescription) asks for \(wait), waited \(clock.waits)")
        require(response.status == .ok && sent.value == 2, "\(text.debugDescription): no retry after the wait")
    case .some(let wait):
        require(
            clock.waits.isEmpty,
            "\(text.debugDescription) asks for \(wait), over the maximum, waited \(clock.waits)"
        )
        require(response.status == .serviceUnavailable && sent.value == 1, "\(text.debugDescription) was retried")
    case .none:
        require(
            clock.waits.count == 1 && clock.waits[0] >= .zero && clock.waits[0] <= .seconds(1),
            "\(text.debugDescription), neither form, waited \(clock.waits), not the backoff"
        )
        require(response.status == .ok && sent.value == 2, "\(text.debugDescription): no retry after the backoff")
    }
}

/// A clock that records each wait and returns at once.
// safety: the lock guards `recorded`, its only mutable state.
final class RecordingClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    private let lock = NSLock()
    private var recorded: [Duration] = []
    private let origin = ContinuousClock.now

    var now: ContinuousClock.Instant { origin }
    var minimumResolution: Duration { .zero }
    var waits: [Duration] { lock.withLock { recorded } }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {  // sleep-ok: records it
        lock.withLock { recorded.append(deadline - origin) }
    }
}

/// Counts calls from the middleware's task.
// safety: the lock guards `count`, its only mutable state.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    /// The count after this call.
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzRetryAfter_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
