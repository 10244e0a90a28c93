/// A small, seeded random number generator (SplitMix64): the same seed gives
/// the same numbers on every platform and run, which is what the server's
/// generated images, downloads and event feeds need to be checkable.
///
/// Not for secrets: use `SystemRandomNumberGenerator` or swift-crypto there.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// The `index`-th number of the sequence seeded with `seed`, without
    /// generating those before it.
    static func value(at index: UInt64, seed: UInt64) -> UInt64 {
        mix(seed &+ (index &+ 1) &* increment)
    }

    private static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
