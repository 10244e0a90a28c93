/// A photo's live metadata, as the server's event stream sends it: one JSON object per line of `GET /events`, or per
/// `data:` field of `GET /events/sse`, each carrying a new favourite count.
///
/// ```swift
/// for try await line in bytes.lines {
///     let metadata = try JSONDecoder().decode(PhotoMetadata.self, from: Data(line.utf8))
///     await updateFavoriteCount(with: metadata)
/// }
/// ```
public struct PhotoMetadata: Codable, Sendable, Equatable, Identifiable {
    /// The photo's id (a slug such as `pillars-of-creation`).
    public var id: String
    /// The photo's title, for display.
    public var title: String
    /// How many members have the photo among their favourites now.
    public var favoriteCount: Int

    /// Metadata with the given values (tests and previews; the app decodes it).
    public init(id: String, title: String, favoriteCount: Int) {
        self.id = id
        self.title = title
        self.favoriteCount = favoriteCount
    }
}
