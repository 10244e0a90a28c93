import BaselineConcurrency
import Foundation

/// A hybrid logical clock's reading: wall-clock milliseconds, a counter for
/// events within one millisecond (or while the wall clock lags a time seen
/// from elsewhere), and the node that made it.
///
/// Timestamps are totally ordered: by milliseconds, then counter, then node.
/// Two devices never make the same timestamp (their nodes differ), and one
/// device's timestamps only grow, so "the later write" is always defined.
///
/// Its text form is fixed-width lowercase hex,
/// `0000018c2d3e4f50-00000001-a1b2c3d4e5f60718`, so that comparing the text
/// (as SQLite compares `TEXT`) orders timestamps as `<` does.
public struct HybridTimestamp: Sendable, Hashable, Comparable, Codable, LosslessStringConvertible {
    /// Milliseconds since 1970 on the wall clock of the node that made it,
    /// or later (a clock never goes back, even when the wall clock does).
    public var milliseconds: UInt64
    /// Orders timestamps of the same millisecond.
    public var counter: UInt32
    /// The node (a database) that made it: random, fixed per database.
    public var node: UInt64

    /// A timestamp with these parts.
    public init(milliseconds: UInt64, counter: UInt32, node: UInt64) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.node = node
    }

    /// Whether `lhs` is earlier: by milliseconds, then counter, then node.
    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.milliseconds, lhs.counter, lhs.node) < (rhs.milliseconds, rhs.counter, rhs.node)
    }

    /// The text form: 16, 8 and 16 lowercase hex digits.
    public var description: String {
        Self.hex(milliseconds, width: 16) + "-" + Self.hex(UInt64(counter), width: 8) + "-"
            + Self.hex(node, width: 16)
    }

    /// Reads the text form; nil for anything else (other widths, upper
    /// case, signs, separators), since the text must sort as the value.
    public init?(_ description: String) {
        let parts = description.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 16, parts[1].count == 8, parts[2].count == 16,
            let milliseconds = Self.value(parts[0]), let counter = Self.value(parts[1]),
            let node = Self.value(parts[2]), let counter32 = UInt32(exactly: counter)
        else { return nil }
        self.init(milliseconds: milliseconds, counter: counter32, node: node)
    }

    /// Decodes the text form; other text is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = HybridTimestamp(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Not a hybrid timestamp: \(text)")
            )
        }
        self = value
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Lowercase hex digits only, at most 16 of them (no overflow).
    private static func value(_ digits: Substring.UTF8View) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }
}

/// A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks",
/// 2014): timestamps close to the wall clock, that never go back, and that
/// are always later than every timestamp the node has seen — so a device
/// whose clock runs slow still orders its edits after those it has pulled.
public final class HybridClock: Sendable {
    /// The node this clock stamps for.
    public let node: UInt64
    private let wallClock: @Sendable () -> UInt64
    private let latest: LockedValue<HybridTimestamp>

    /// A clock for `node`, reading milliseconds since 1970 from `wallClock`
    /// (tests pass their own), starting after `start` if given (the last
    /// timestamp the node made, kept across launches).
    public init(
        node: UInt64,
        start: HybridTimestamp? = nil,
        wallClock: @escaping @Sendable () -> UInt64 = HybridClock.systemMilliseconds
    ) {
        self.node = node
        self.wallClock = wallClock
        latest = LockedValue(start ?? HybridTimestamp(milliseconds: 0, counter: 0, node: node))
    }

    /// Milliseconds since 1970 on the system clock.
    public static let systemMilliseconds: @Sendable () -> UInt64 = {
        // A clock before 1970 (or unreadable) reads as 1970: the counter still orders events.
        UInt64(exactly: (Date().timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
    }

    /// The timestamp for a local event (a write): later than every timestamp
    /// made or seen so far.
    public func now() -> HybridTimestamp {
        let wall = wallClock()
        return latest.withLock { latest in
            latest = Self.advance(latest, wall: wall, seen: nil, node: node)
            return latest
        }
    }

    /// Takes in a timestamp from elsewhere (a pulled change), so that every
    /// later ``now()`` is after it.
    public func observe(_ remote: HybridTimestamp) {
        let wall = wallClock()
        latest.withLock { latest in
            latest = Self.advance(latest, wall: wall, seen: remote, node: node)
        }
    }

    /// The latest timestamp made or seen, to keep across launches.
    public var last: HybridTimestamp { latest.current }

    private static func advance(
        _ last: HybridTimestamp,
        wall: UInt64,
        seen: HybridTimestamp?,
        node: UInt64
    ) -> HybridTimestamp {
        let milliseconds = max(wall, last.milliseconds, seen?.milliseconds ?? 0)
        var counter: UInt64 = 0
        if milliseconds == last.milliseconds { counter = max(counter, UInt64(last.counter) + 1) }
        if let seen, milliseconds == seen.milliseconds { counter = max(counter, UInt64(seen.counter) + 1) }
        // A counter past its width moves to the next millisecond instead: a
        // peer cannot make this clock trap with a huge counter.
        guard let counter32 = UInt32(exactly: counter) else {
            let next = milliseconds == .max ? milliseconds : milliseconds + 1
            return HybridTimestamp(milliseconds: next, counter: 0, node: node)
        }
        return HybridTimestamp(milliseconds: milliseconds, counter: counter32, node: node)
    }
}
