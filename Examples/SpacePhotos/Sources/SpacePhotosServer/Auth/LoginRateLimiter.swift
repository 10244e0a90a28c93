import Foundation

/// Counts failed logins per id and locks an id out after too many.
///
/// After ``Policy/maxFailures`` failures within ``Policy/window``, the id is
/// locked for ``Policy/lockout``: every attempt then gets 429 with
/// `Retry-After`, without the password being checked, so guessing costs the
/// attacker time rather than the server CPU. A successful login resets the count.
public actor LoginRateLimiter {
    public struct Policy: Sendable {
        public var maxFailures: Int
        public var window: Duration
        public var lockout: Duration

        public init(maxFailures: Int = 5, window: Duration = .seconds(60), lockout: Duration = .seconds(60)) {
            self.maxFailures = maxFailures
            self.window = window
            self.lockout = lockout
        }
    }

    private struct Record {
        var failures: [Date] = []
        var lockedUntil: Date?
    }

    public let policy: Policy
    private var records: [String: Record] = [:]

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Whole seconds until `id` may try again, or `nil` when it may try now.
    public func retryAfter(for id: String, now: Date) -> Int? {
        guard let until = records[id]?.lockedUntil, until > now else { return nil }
        return max(1, Int(until.timeIntervalSince(now).rounded(.up)))
    }

    /// Notes a failed attempt for `id`.
    public func recordFailure(for id: String, now: Date) {
        var record = records[id] ?? Record()
        let windowStart = now.addingTimeInterval(-policy.window.seconds)
        record.failures = record.failures.filter { $0 > windowStart } + [now]
        if record.failures.count >= policy.maxFailures {
            record.lockedUntil = now.addingTimeInterval(policy.lockout.seconds)
            record.failures = []
        }
        records[id] = record
    }

    /// Forgets the failures of `id` after a successful login.
    public func recordSuccess(for id: String) {
        records[id] = nil
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
