import Foundation

// `nonisolated` for an app target whose default isolation is the main actor:
// the member API reads it from the server's answer off the main actor.

/// A member of the service.
public nonisolated struct User: Identifiable, Sendable, Hashable, Codable {
    /// A member's id: a typed wrapper, so it cannot be confused with any other string.
    public nonisolated struct ID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The id as the server knows it, for example `astro`.
        public let rawValue: String

        /// Wraps an id; it is not checked against the server.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The raw id, unquoted (ids are not secret).
        public var description: String { rawValue }
    }

    /// The id the member logs in with; it identifies the member.
    public let id: ID
    /// The name the member chose to be greeted by, as the server returned it.
    public var nickname: String
    /// Midnight UTC of the birthday; on the wire it is a `yyyy-MM-dd` date.
    public var birthday: Date

    /// A member with the given values; `birthday` should be midnight UTC.
    public init(id: ID, nickname: String, birthday: Date) {
        self.id = id
        self.nickname = nickname
        self.birthday = birthday
    }

    private enum CodingKeys: String, CodingKey {
        case id, nickname, birthday
    }

    /// Calendar dates as `yyyy-MM-dd`, in UTC so a birthday never shifts a day.
    static let dateStyle = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()

    /// Decodes a member whose `birthday` is a `yyyy-MM-dd` string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a birthday in another format.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(ID.self, forKey: .id)
        self.nickname = try container.decode(String.self, forKey: .nickname)
        let text = try container.decode(String.self, forKey: .birthday)
        do {
            self.birthday = try Self.dateStyle.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .birthday,
                in: container,
                debugDescription: "Expected a yyyy-MM-dd date, got \(text)"
            )
        }
    }

    /// Encodes the member with `birthday` as a `yyyy-MM-dd` string, in UTC.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(nickname, forKey: .nickname)
        try container.encode(birthday.formatted(Self.dateStyle), forKey: .birthday)
    }
}
