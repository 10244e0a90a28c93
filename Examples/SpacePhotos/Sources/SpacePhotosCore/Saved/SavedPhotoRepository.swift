import BaselinePersistence
import Foundation
import GRDB

// `nonisolated` for an app target whose default isolation is the main actor:
// called by effects, off the main actor.

/// The saved photos' storage: each photo with its image, on an ``SQLiteDatabase``.
///
/// Saving is an upsert in one transaction: the entry and its image are there
/// together or not at all, and saving a saved photo again replaces it.
public nonisolated struct SavedPhotoRepository: Sendable {
    /// The database the photos are kept in.
    public let database: SQLiteDatabase
    private let now: @Sendable () -> Date

    /// A repository on `database` (its schema up to date: see ``SavedPhotoSchema``);
    /// `now` dates the saves.
    public init(database: SQLiteDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Opens (creating if needed) the database at `url`, schema up to date.
    public static func open(
        at url: URL,
        configuration: Configuration = Configuration()
    ) async throws -> SavedPhotoRepository {
        SavedPhotoRepository(
            database: try await SQLiteDatabase.open(
                at: url,
                migrator: SavedPhotoSchema.migrator,
                configuration: configuration
            )
        )
    }

    /// Stores `photo` with its image's bytes.
    ///
    /// - Throws: ``SavedPhotoError/emptyImage`` when `image` is empty.
    @discardableResult
    public func save(_ photo: SpacePhoto, image: Data, mediaType: String) async throws -> SavedPhoto {
        guard !image.isEmpty else { throw SavedPhotoError.emptyImage }
        let saved = SavedPhoto(photo: photo, mediaType: mediaType, imageByteCount: image.count, savedAt: now())
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO saved_photo (day, title, explanation, url, mediaType, image, savedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(day) DO UPDATE SET
                        title = excluded.title, explanation = excluded.explanation, url = excluded.url,
                        mediaType = excluded.mediaType, image = excluded.image, savedAt = excluded.savedAt
                    """,
                arguments: [
                    photo.day, photo.title, photo.description, photo.url.absoluteString, mediaType, image,
                    saved.savedAt,
                ]
            )
        }
        return saved
    }

    /// Removes a saved photo; `false` when it was not saved.
    @discardableResult
    public func remove(_ photoID: SpacePhoto.ID) async throws -> Bool {
        let day = PhotoDay.string(from: photoID)
        return try await database.write { db in
            try db.execute(sql: "DELETE FROM saved_photo WHERE day = ?", arguments: [day])
            return db.changesCount > 0
        }
    }

    /// The saved image of a photo, or `nil` when it is not saved.
    public func imageData(for photoID: SpacePhoto.ID) async throws -> Data? {
        let day = PhotoDay.string(from: photoID)
        return try await database.read { db in
            try Data.fetchOne(db, sql: "SELECT image FROM saved_photo WHERE day = ?", arguments: [day])
        }
    }

    /// Every saved photo, most recently saved first.
    public func all() async throws -> [SavedPhoto] {
        try await database.read(Self.fetchAll)
    }

    /// Every saved photo, most recently saved first, now and after each
    /// change; a live query for ``SavedPhotos``' `fetching`.
    ///
    /// Ends by throwing `SQLiteDatabaseError.closed` when the database closes.
    public func live() -> AsyncThrowingStream<[SavedPhoto], any Error> {
        database.live(DatabaseQuery(placeholder: [], Self.fetchAll))
    }

    @Sendable private static func fetchAll(_ db: Database) throws -> [SavedPhoto] {
        // Everything but the image, which a list does not need.
        try SavedPhoto.fetchAll(
            db,
            sql: """
                SELECT day, title, explanation, url, mediaType, length(image) AS imageByteCount, savedAt
                FROM saved_photo ORDER BY savedAt DESC, day DESC
                """
        )
    }
}
