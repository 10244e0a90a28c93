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
}
