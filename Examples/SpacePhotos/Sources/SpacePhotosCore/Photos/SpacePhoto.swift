import Foundation

// `nonisolated` for an app target whose default isolation is the main actor:
// decoded by effects, off the main actor.

/// One day's entry in the space photo catalog: the shape of NASA's
/// Astronomy Picture of the Day entries.
///
/// The JSON is APOD's: `title`, `explanation` (read into
/// ``description``), `date` as `yyyy-MM-dd` and the image's `url`.
///
/// ```json
/// {"title": "Orion at Dusk", "explanation": "…", "date": "2024-03-15",
///  "url": "http://localhost:8080/images/nebula-03.jpg"}
/// ```
///
/// A photo is identified by its date: the catalog has one photo a day.
public nonisolated struct SpacePhoto: Sendable, Hashable, Identifiable {
    /// The photo's title.
    public var title: String
    /// What the photo shows (the JSON's `explanation`).
    public var description: String
    /// The day the photo was added to the catalog: midnight UTC of that day.
    public var date: Date
    /// The image.
    public var url: URL

    /// The photo's ``date``: the catalog has one photo a day.
    public var id: Date { date }

    /// A photo with the given values; `date` should be midnight UTC of its day.
    public init(title: String, description: String, date: Date, url: URL) {
        self.title = title
        self.description = description
        self.date = date
        self.url = url
    }

    /// The date as the JSON writes it, `yyyy-MM-dd`.
    public var day: String { PhotoDay.string(from: date) }
}

nonisolated extension SpacePhoto: Codable {
    enum CodingKeys: String, CodingKey {
        case title
        case description = "explanation"
        case date
        case url
    }

    /// Decodes APOD's JSON: `explanation` becomes ``description``, `date` is `yyyy-MM-dd`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a date in another format.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        description = try container.decode(String.self, forKey: .description)
        // Parsed here, not by the decoder's date strategy: the format is part
        // of the type, whatever decoder the client happens to use.
        let day = try container.decode(String.self, forKey: .date)
        guard let date = PhotoDay.date(from: day) else {
            throw DecodingError.dataCorruptedError(
                forKey: .date,
                in: container,
                debugDescription: "Expected a date as yyyy-MM-dd, got \"\(day)\""
            )
        }
        self.date = date
        url = try container.decode(URL.self, forKey: .url)
    }

    /// Encodes all four keys as APOD's JSON, the date as `yyyy-MM-dd`.
    public func encode(to encoder: any Encoder) throws {
        // All four keys, so a photo survives a round trip (an encoder that
        // leaves the URL out loses the image).
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(day, forKey: .date)
        try container.encode(url, forKey: .url)
    }
}
