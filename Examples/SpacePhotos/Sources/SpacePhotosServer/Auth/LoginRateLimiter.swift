import Foundation

/// Counts failed logins per id and locks an id out after too many.
///
/// After ``Policy/maxFailures`` failures within ``Policy/window``, the id is
/// locked for ``Policy/lockout``: every attempt then gets 429 with
/// `Retry-After`, without the password being checked, so guessing costs the
/// attacker time rather than the server CPU. A successful login resets the count.
public actor LoginRateLimiter {
    /// When an id is locked out, and for how long.
    public struct Policy: Sendable {
        /// Failed logins allowed within ``window``; the next one locks the id.
        public var maxFailures: Int
        /// How far back failures count.
        public var window: Duration
        /// How long a locked id stays locked.
        public var lockout: Duration

        /// A policy; by default five failures a minute lock an id for a minute.
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

    /// The policy this limiter applies.
    public let policy: Policy
    private var records: [String: Record] = [:]

    /// A limiter with no failures counted yet.
    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Admits an attempt for `id`, or says how many whole seconds to wait.
    ///
    /// An admitted attempt counts as a failure from the start (``recordSuccess(for:)``
    /// takes it back): checking and counting in one step, on the actor, means
    /// that attempts sent in parallel cannot all slip in before the first
    /// failure is counted — at most ``Policy/maxFailures`` are ever in flight.
    public func admit(_ id: String, now: Date) -> Int? {
        if let until = records[id]?.lockedUntil, until > now {
            return max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        }
        recordFailure(for: id, now: now)
        return nil
    }

    /// Notes a failed attempt for `id`.
    func recordFailure(for id: String, now: Date) {
        if records.count >= Self.sweepThreshold { sweep(now: now) }
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

    /// Past this many ids, records with nothing left to say are dropped, so
    /// guessing random ids cannot grow the table without bound.
    static let sweepThreshold = 10_000

    private func sweep(now: Date) {
        let windowStart = now.addingTimeInterval(-policy.window.seconds)
        records = records.filter { _, record in
            (record.lockedUntil.map { $0 > now } ?? false) || record.failures.contains { $0 > windowStart }
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
