import BaselineConcurrency
import Foundation
import Testing

@testable import BaselineSync

@Suite("Hybrid logical clock")
struct HybridClockTests {
    /// A wall clock the test sets.
    final class WallClock: Sendable {
        private let time = LockedValue<UInt64>(0)
        func set(_ milliseconds: UInt64) { time.withLock { $0 = milliseconds } }
        var read: @Sendable () -> UInt64 { { [time] in time.current } }
    }

    @Test func timestampsFollowTheWallClockAndNeverRepeat() {
        let wall = WallClock()
        wall.set(1_000)
        let clock = HybridClock(node: 1, wallClock: wall.read)
        let first = clock.now()
        let second = clock.now()
        #expect(first == HybridTimestamp(milliseconds: 1_000, counter: 0, node: 1))
        #expect(second == HybridTimestamp(milliseconds: 1_000, counter: 1, node: 1))
        wall.set(1_005)
        #expect(clock.now() == HybridTimestamp(milliseconds: 1_005, counter: 0, node: 1))
    }

    @Test func aWallClockThatGoesBackDoesNotTakeTheClockBack() {
        let wall = WallClock()
        wall.set(2_000)
        let clock = HybridClock(node: 1, wallClock: wall.read)
        let before = clock.now()
        wall.set(1_000)
        let after = clock.now()
        #expect(before < after)
        #expect(after == HybridTimestamp(milliseconds: 2_000, counter: 1, node: 1))
    }

    @Test func aSlowDeviceOrdersItsWritesAfterWhatItHasSeen() {
        let wall = WallClock()
        wall.set(1_000)
        let slow = HybridClock(node: 2, wallClock: wall.read)
        let fromAFastDevice = HybridTimestamp(milliseconds: 90_000, counter: 7, node: 1)
        slow.observe(fromAFastDevice)
        let next = slow.now()
        #expect(next > fromAFastDevice)
        #expect(next == HybridTimestamp(milliseconds: 90_000, counter: 9, node: 2))
    }

    @Test func aCounterAtItsLimitMovesToTheNextMillisecond() {
        let clock = HybridClock(node: 3, wallClock: { 10 })
        clock.observe(HybridTimestamp(milliseconds: 10, counter: .max, node: 1))
        #expect(clock.now() == HybridTimestamp(milliseconds: 11, counter: 1, node: 3))
        clock.observe(HybridTimestamp(milliseconds: .max, counter: .max, node: 1))
        // Nothing after the last millisecond: still no trap, still one node's order.
        #expect(clock.now().milliseconds == .max)
    }

    @Test func theClockStartsAfterTheLastTimestampKept() {
        let kept = HybridTimestamp(milliseconds: 5_000, counter: 3, node: 4)
        let clock = HybridClock(node: 4, start: kept, wallClock: { 1_000 })
        #expect(clock.now() == HybridTimestamp(milliseconds: 5_000, counter: 4, node: 4))
    }

    @Test func theTextSortsAsTheTimestamps() {
        var generator = SplitMix64(seed: 29)
        let stamps = (0..<500).map { _ in
            HybridTimestamp(
                milliseconds: generator.next() >> UInt64.random(in: 0..<64, using: &generator),
                counter: UInt32(truncatingIfNeeded: generator.next() >> 40),
                node: generator.next()
            )
        }
        #expect(stamps.sorted().map(\.description) == stamps.map(\.description).sorted())
        for stamp in stamps { #expect(HybridTimestamp(stamp.description) == stamp) }
    }

    @Test(arguments: [
        "", "0-0-0", "0000018c2d3e4f50-00000001", "0000018C2D3E4F50-00000001-a1b2c3d4e5f60718",
        "+000018c2d3e4f50-00000001-a1b2c3d4e5f60718", "0000018c2d3e4f50-00000001-a1b2c3d4e5f607189",
        "0000018c2d3e4f50-000000001-a1b2c3d4e5f6071", "0000018c2d3e4f50_00000001_a1b2c3d4e5f60718",
        "0000018c2d3e4f50-00000001-a1b2c3d4e5f6071g",
    ])
    func anythingButTheTextFormIsRefused(text: String) {
        #expect(HybridTimestamp(text) == nil)
    }

    @Test func itTravelsAsItsText() throws {
        let stamp = HybridTimestamp(milliseconds: 0x18c_2d3e_4f50, counter: 1, node: 0xa1b2_c3d4_e5f6_0718)
        let json = try JSONEncoder().encode([stamp])
        #expect(String(decoding: json, as: UTF8.self) == #"["0000018c2d3e4f50-00000001-a1b2c3d4e5f60718"]"#)
        #expect(try JSONDecoder().decode([HybridTimestamp].self, from: json) == [stamp])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([HybridTimestamp].self, from: Data(#"["1"]"#.utf8))
        }
    }
}

/// A small seeded generator, so that property tests replay.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
