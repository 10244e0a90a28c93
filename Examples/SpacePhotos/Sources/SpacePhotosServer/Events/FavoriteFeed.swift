/// The favourite-count feed behind `GET /events` (a stream of
/// `PhotoMetadata`, as `URLSession.bytes(from:).lines` reads one): an endless, deterministic sequence in which event *n*
/// is the same on every run, so a client that resumes from an event id gets
/// exactly what it missed, and tests know what to expect.
///
/// Each event picks a photo (from a seeded generator) and raises its count
/// by 1 to 3.
struct FavoriteFeed: Sendable {
    struct Photo: Sendable {
        var id: String
        var title: String
        var initialCount: Int
    }

    static let photos: [Photo] = [
        Photo(id: "pillars-of-creation", title: "Pillars of Creation", initialCount: 1_204),
        Photo(id: "earthrise", title: "Earthrise", initialCount: 987),
        Photo(id: "pale-blue-dot", title: "Pale Blue Dot", initialCount: 1_532),
        Photo(id: "horsehead-nebula", title: "Horsehead Nebula", initialCount: 640),
        Photo(id: "crab-nebula", title: "Crab Nebula", initialCount: 455),
        Photo(id: "andromeda-galaxy", title: "Andromeda Galaxy", initialCount: 812),
    ]

    private static let seed: UInt64 = 0xFA40_0417

    private var counts = photos.map(\.initialCount)
    /// The index of the next event.
    private(set) var position = 0

    /// A feed positioned at event `start` (its counts as they were then).
    init(startingAt start: Int = 0) {
        while position < start { _ = next() }
    }

    /// The next event.
    mutating func next() -> FavoriteEvent {
        let value = SplitMix64.value(at: UInt64(position), seed: Self.seed)
        let index = Int(value % UInt64(Self.photos.count))
        counts[index] += 1 + Int((value >> 32) % 3)
        position += 1
        let photo = Self.photos[index]
        return FavoriteEvent(id: photo.id, title: photo.title, favoriteCount: counts[index])
    }
}
