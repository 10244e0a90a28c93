import Foundation
import SpacePhotosCore
import Testing

@Suite("SpacePhoto decoding", .timeLimit(.minutes(2)))
struct SpacePhotoTests {
    let decoder = JSONDecoder()

    func json(date: String = "2024-03-15", dropping key: String? = nil) -> Data {
        var fields = [
            "title": "\"Orion at Dusk\"",
            "explanation": "\"A nebula over the hills.\"",
            "date": "\"\(date)\"",
            "url": "\"http://localhost:8080/images/nebula-03.jpg\"",
        ]
        if let key { fields[key] = nil }
        return Data(("{" + fields.map { "\"\($0)\": \($1)" }.joined(separator: ", ") + "}").utf8)
    }

    @Test func decodesAPODsJSON() throws {
        let photo = try decoder.decode(SpacePhoto.self, from: json())
        #expect(photo.title == "Orion at Dusk")
        #expect(photo.description == "A nebula over the hills.")
        #expect(photo.day == "2024-03-15")
        #expect(photo.url.absoluteString == "http://localhost:8080/images/nebula-03.jpg")
        #expect(photo.id == photo.date)
        // Midnight UTC, whatever the machine's time zone.
        #expect(photo.date == Date(timeIntervalSince1970: 1_710_460_800))
    }

    @Test(arguments: ["title", "explanation", "date", "url"])
    func aMissingKeyIsAKeyNotFoundError(key: String) {
        #expect {
            try decoder.decode(SpacePhoto.self, from: json(dropping: key))
        } throws: { error in
            guard case let DecodingError.keyNotFound(missing, _) = error else { return false }
            return missing.stringValue == key
        }
    }

    @Test(arguments: ["15/03/2024", "2024-3-15", "2024-02-30", "2023-02-29", "2024-13-01", "2024-03-15T00:00:00Z", ""])
    func aBadDateIsADataCorruptedError(date: String) {
        #expect {
            try decoder.decode(SpacePhoto.self, from: json(date: date))
        } throws: { error in
            guard case let DecodingError.dataCorrupted(context) = error else { return false }
            return context.codingPath.last?.stringValue == "date"
        }
    }

    @Test func aLeapDayIsADay() throws {
        #expect(try decoder.decode(SpacePhoto.self, from: json(date: "2024-02-29")).day == "2024-02-29")
    }

    @Test func yearZeroIsNotADay() {
        // Found by Fuzz/run PhotoDay (a day prints back to its text):
        // 0000-03-01 was taken as 1 BC and printed as 0001-03-01.
        #expect(PhotoDay.date(from: "0000-03-01") == nil)
        let first = PhotoDay.date(from: "0001-01-01")
        #expect(first.map(PhotoDay.string(from:)) == "0001-01-01")
    }

    @Test func encodingRoundTripsWithAPODsKeys() throws {
        let photo = try decoder.decode(SpacePhoto.self, from: json())
        let data = try JSONEncoder().encode(photo)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(Set(object.keys) == ["title", "explanation", "date", "url"])
        #expect(object["date"] == "2024-03-15")
        #expect(try decoder.decode(SpacePhoto.self, from: data) == photo)
    }
}
