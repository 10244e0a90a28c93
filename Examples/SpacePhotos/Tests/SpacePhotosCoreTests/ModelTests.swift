import Foundation
import SpacePhotosCore
import Testing

@Suite("Models")
struct ModelTests {
    @Test func aUserDecodesFromTheServersJSON() throws {
        let json = Data(#"{"id":"astro","nickname":"Astro","birthday":"1990-04-12"}"#.utf8)
        let user = try JSONDecoder().decode(User.self, from: json)
        #expect(user.id == User.ID(rawValue: "astro"))
        #expect(user.nickname == "Astro")
        let day = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: user.birthday)
        #expect([day.year, day.month, day.day] == [1990, 4, 12])
        // And round-trips.
        #expect(try JSONDecoder().decode(User.self, from: JSONEncoder().encode(user)) == user)
    }

    @Test(arguments: [
        #"{"id":"astro","nickname":"Astro","birthday":"12/04/1990"}"#,
        #"{"id":"astro","nickname":"Astro"}"#,
        #"{"id":7,"nickname":"Astro","birthday":"1990-04-12"}"#,
    ])
    func aMalformedUserIsADecodingError(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(User.self, from: Data(json.utf8)) }
    }

    @Test func credentialsNeverPrintThePassword() {
        let credentials = Credentials(id: User.ID(rawValue: "astro"), password: "hunter2")
        #expect(!"\(credentials)".contains("hunter2"))
        #expect("\(credentials)".contains("astro"))
    }

    @Test func photoMetadataDecodesFromAnEventLine() throws {
        let line = #"{"favoriteCount":1534,"id":"pale-blue-dot","title":"Pale Blue Dot"}"#
        let metadata = try JSONDecoder().decode(PhotoMetadata.self, from: Data(line.utf8))
        #expect(metadata == PhotoMetadata(id: "pale-blue-dot", title: "Pale Blue Dot", favoriteCount: 1534))
        #expect(try JSONDecoder().decode(PhotoMetadata.self, from: JSONEncoder().encode(metadata)) == metadata)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                PhotoMetadata.self,
                from: Data(#"{"id":"x","title":"X","favoriteCount":"many"}"#.utf8)
            )
        }
    }

    @Test func refreshTokensNeverPrint() {
        let token = RefreshToken(rawValue: "secret-refresh-value")
        #expect(!"\(token)".contains("secret"))
        #expect(!String(reflecting: token).contains("secret"))
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains("secret"))
    }
}
