import BaselineHTTP
import Foundation
import SpacePhotosAPI

// `nonisolated` for an app target whose default isolation is the main actor:
// the photo and member APIs map their answers off the main actor.

// The generated schema types, as the app's models: the one place that knows
// both. The document's `format: date` and `format: uri` fields arrive as
// strings; they are checked here as the models' own decoders check them, and
// fail with the same ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``
// a hand-written request's decoding would.

nonisolated extension User {
    /// The member the server sent (`GET /members/me`).
    ///
    /// - Throws: ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``
    ///   for a birthday that is not `yyyy-MM-dd`.
    init(_ member: Components.Schemas.Member) throws {
        guard let birthday = try? Self.dateStyle.parse(member.birthday) else {
            throw SchemaField.invalid(
                "birthday",
                member.birthday,
                "Expected a yyyy-MM-dd date, got \(member.birthday)"
            )
        }
        self.init(id: ID(rawValue: member.id), nickname: member.nickname, birthday: birthday)
    }
}

nonisolated extension SpacePhoto {
    /// The photo the server sent (`GET /photos`): its `explanation` is the
    /// ``description``.
    ///
    /// - Throws: ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``
    ///   for a date that is not a real `yyyy-MM-dd` day, or a URL that is not one.
    init(_ photo: Components.Schemas.Photo) throws {
        guard let date = PhotoDay.date(from: photo.date) else {
            throw SchemaField.invalid("date", photo.date, "Expected a date as yyyy-MM-dd, got \"\(photo.date)\"")
        }
        guard let url = URL(string: photo.url) else {
            throw SchemaField.invalid("url", photo.url, "Invalid URL string.")
        }
        self.init(title: photo.title, description: photo.explanation, date: date, url: url)
    }
}

/// A field of a generated schema value, named as the JSON names it.
private nonisolated struct SchemaField: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) { nil }

    /// The error a decoder throws for a field whose text is not what it
    /// should be, as the response's decoding failure.
    static func invalid(_ name: String, _ text: String, _ reason: String) -> HTTPClientError {
        let context = DecodingError.Context(codingPath: [SchemaField(stringValue: name)], debugDescription: reason)
        return .decodingFailed(underlying: DecodingError.dataCorrupted(context), bodyExcerpt: text)
    }
}
