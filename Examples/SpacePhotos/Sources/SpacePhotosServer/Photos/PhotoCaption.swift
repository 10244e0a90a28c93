/// The title and explanation of a day's photo, written from the picture's
/// theme and the date, so every day reads differently but the same day
/// always reads the same.
enum PhotoCaption {
    static func title(for image: CatalogImage, on day: CalendarDay) -> String {
        var random = generator(image, day)
        let words = vocabulary[image.theme] ?? ([], [])
        return
            "The \(pick(words.adjectives, &random)) \(pick(words.nouns, &random)) in \(pick(constellations, &random))"
    }

    static func explanation(for image: CatalogImage, on day: CalendarDay) -> String {
        var random = generator(image, day)
        // The same draws as the title, so the constellation agrees.
        let words = vocabulary[image.theme] ?? ([], [])
        _ = pick(words.adjectives, &random)
        _ = pick(words.nouns, &random)
        let constellation = pick(constellations, &random)
        let body: String
        switch image.theme {
        case .starField:
            let span = 20 + Int(random.next() % 180)
            body =
                "Thousands of stars crowd this view towards \(constellation), where the band of the Milky Way is crossed by dark rifts of dust. "
                + "Their colours are their temperatures: orange suns are cooler than ours, blue-white ones far hotter. "
                + "The field is about \(span) light-years across at the distance of its brightest stars."
        case .nebula:
            let distance = 1_000 + Int(random.next() % 60) * 100
            body =
                "About \(distance) light-years away in \(constellation), clouds of gas glow in the light of the young, hot stars born inside them. "
                + "Hydrogen shines red, oxygen teal; dark lanes are dust that blocks the light from behind."
        case .galaxy:
            let distance = 5 + Int(random.next() % 90)
            body =
                "Some \(distance) million light-years away in \(constellation), this spiral galaxy winds arms of young blue stars "
                + "and pink star-forming regions around a yellow core of older stars, with dust lanes along the arms' inner edges."
        case .cluster:
            let stars = 100 + Int(random.next() % 900)
            let distance = 8 + Int(random.next() % 50)
            body =
                "About \(stars) thousand stars, most of them older than the Sun, swarm in this globular cluster "
                + "some \(distance) thousand light-years away in \(constellation); towards the core they crowd too close to tell apart."
        }
        return body + " Picture of the day for \(day), drawn by the SpacePhotos server."
    }

    private static func generator(_ image: CatalogImage, _ day: CalendarDay) -> SplitMix64 {
        SplitMix64(seed: image.seed ^ UInt64(bitPattern: Int64(day.number)) &* 0x9E37_79B9)
    }

    private static func pick(_ words: [String], _ random: inout SplitMix64) -> String {
        words.isEmpty ? "" : words[Int(random.next() % UInt64(words.count))]
    }

    private static let vocabulary: [SpaceArt.Theme: (adjectives: [String], nouns: [String])] = [
        .starField: (
            ["Deep", "Quiet", "Crowded", "Glittering", "Dusty"],
            ["Star Field", "Milky Way", "Galactic Band", "Dark Rift"]
        ),
        .nebula: (
            ["Crimson", "Veiled", "Glowing", "Tangled", "Luminous"],
            ["Nebula", "Emission Nebula", "Stellar Nursery", "Cloud of Gas"]
        ),
        .galaxy: (
            ["Distant", "Tilted", "Radiant", "Silent", "Majestic"],
            ["Spiral Galaxy", "Island Universe", "Grand Design Spiral", "Whirlpool"]
        ),
        .cluster: (
            ["Ancient", "Dense", "Golden", "Swarming", "Timeless"],
            ["Globular Cluster", "Star Cluster", "Ball of Suns", "Stellar Hive"]
        ),
    ]

    private static let constellations = [
        "Cygnus", "Orion", "Sagittarius", "Carina", "Centaurus", "Andromeda", "Perseus", "Cassiopeia",
        "Scorpius", "Ursa Major", "Hercules", "Lyra", "Aquila", "Taurus", "Virgo", "Pegasus",
    ]
}
