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

        /// Whether the record still changes an answer at `now`: the id is
        /// locked, or a failure still counts.
        func matters(at now: Date, windowStart: Date) -> Bool {
            (lockedUntil.map { $0 > now } ?? false) || failures.contains { $0 > windowStart }
        }
    }

    /// The policy this limiter applies.
    public let policy: Policy
    private var records: [String: Record] = [:]
    /// The ids with a record, by their last failure: the stalest first.
    private var recency = RecencyQueue<String>()

    /// How many records each attempt may forget at most: more than it can
    /// add (one), so stale records never pile up, and a bound on the work
    /// of one attempt however many ids are live.
    static let forgetPerAttempt = 4

    /// How many ids the limiter holds a record for.
    var trackedIDs: Int { records.count }

    /// How many records the attempts so far looked at to forget stale ones:
    /// a few per attempt, however many ids are live.
    private(set) var recordsExamined = 0

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
            // At least a second; capped, so no policy or clock makes Int(_:) trap.
            return max(1, Int(min(until.timeIntervalSince(now).rounded(.up), 1e9)))
        }
        recordFailure(for: id, now: now)
        return nil
    }

    /// Notes a failed attempt for `id`.
    func recordFailure(for id: String, now: Date) {
        let windowStart = now.addingTimeInterval(-policy.window.seconds)
        forgetStale(now: now, windowStart: windowStart)
        var record = records[id] ?? Record()
        record.failures = record.failures.filter { $0 > windowStart } + [now]
        if record.failures.count >= policy.maxFailures {
            record.lockedUntil = now.addingTimeInterval(policy.lockout.seconds)
            record.failures = []
        }
        records[id] = record
        recency.touch(id)
    }

    /// Forgets the failures of `id` after a successful login.
    public func recordSuccess(for id: String) {
        records[id] = nil
        recency.remove(id)
    }

    /// Drops up to ``forgetPerAttempt`` records with nothing left to say,
    /// the stalest first, so guessing random ids cannot grow the table
    /// without bound, and no attempt pays for a scan of every id. It stops
    /// at the stalest record that still matters: the ones behind it have
    /// failed since, and go in their turn.
    private func forgetStale(now: Date, windowStart: Date) {
        for _ in 0..<Self.forgetPerAttempt {
            guard let id = recency.oldest() else { return }
            recordsExamined += 1
            if let record = records[id], record.matters(at: now, windowStart: windowStart) { return }
            records[id] = nil
            recency.remove(id)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
