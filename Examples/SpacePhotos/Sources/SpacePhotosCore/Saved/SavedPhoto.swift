import Foundation
import GRDB

// `nonisolated` for an app target whose default isolation is the main actor:
// a GRDB record: read and written on the database's queue.

/// A photo the user saved: the catalog entry and, stored beside it, its image.
///
/// The image's bytes are not part of this value — a list of saved photos
/// would otherwise load every image; ``SavedPhotoRepository/imageData(for:)``
/// reads them when they are shown.
public nonisolated struct SavedPhoto: Sendable, Hashable, Identifiable {
    /// The catalog entry.
    public var photo: SpacePhoto
    /// The image's media type (`image/png`, `image/jpeg`).
    public var mediaType: String
    /// The image's size in bytes.
    public var imageByteCount: Int
    /// When it was saved.
    public var savedAt: Date

    /// The photo's day, as for ``SpacePhoto/id``: one saved photo a day.
    public var id: Date { photo.id }

    /// A saved photo's listing; the image bytes stay in the database.
    public init(photo: SpacePhoto, mediaType: String, imageByteCount: Int, savedAt: Date) {
        self.photo = photo
        self.mediaType = mediaType
        self.imageByteCount = imageByteCount
        self.savedAt = savedAt
    }
}

nonisolated extension SavedPhoto: FetchableRecord {
    static let databaseTableName = "saved_photo"

    /// Reads a `saved_photo` row, without its image.
    ///
    /// - Throws: ``SavedPhotoError/damagedRecord(day:)`` when the day or the URL
    ///   cannot be parsed.
    public init(row: Row) throws {
        let day: String = row["day"]
        let urlString: String = row["url"]
        guard let date = PhotoDay.date(from: day), let url = URL(string: urlString) else {
            throw SavedPhotoError.damagedRecord(day: day)
        }
        photo = SpacePhoto(title: row["title"], description: row["explanation"], date: date, url: url)
        mediaType = row["mediaType"]
        imageByteCount = row["imageByteCount"]
        savedAt = row["savedAt"]
    }
}

/// Why saving, unsaving or reading a saved photo failed.
public enum SavedPhotoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A row of the database could not be read back as a photo.
    case damagedRecord(day: String)
    /// The image that was to be saved is empty.
    case emptyImage

    /// One sentence for the user, naming the damaged photo's day.
    public var description: String {
        switch self {
        case let .damagedRecord(day): "The saved photo of \(day) is damaged."
        case .emptyImage: "The photo's image is empty; nothing was saved."
        }
    }
}
