import Foundation

/// A member of the service.
public struct User: Identifiable, Sendable, Hashable, Codable {
    /// A member's id: a typed wrapper, so it cannot be confused with any other string.
    public struct ID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }
    }

    public let id: ID
    public var nickname: String
    /// Midnight UTC of the birthday; on the wire it is a `yyyy-MM-dd` date.
    public var birthday: Date

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

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(ID.self, forKey: .id)
        self.nickname = try container.decode(String.self, forKey: .nickname)
        let text = try container.decode(String.self, forKey: .birthday)
        do {
            self.birthday = try Self.dateStyle.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .birthday, in: container, debugDescription: "Expected a yyyy-MM-dd date, got \(text)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(nickname, forKey: .nickname)
        try container.encode(birthday.formatted(Self.dateStyle), forKey: .birthday)
    }
}
