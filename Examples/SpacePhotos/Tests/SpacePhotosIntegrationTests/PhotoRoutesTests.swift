import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

// Three minutes: the server draws pictures, seconds each in a debug build
// and ten times that under ThreadSanitizer (CI's second run).
/// The photo of the day as the app's client sees it, from the JSON shape
/// through the error answers to the failure knobs.
@Suite("GET /photos and /photos/dates: the photo of the day", .timeLimit(.minutes(3)))
struct PhotoRoutesTests {
    struct Photo: Decodable, Equatable {
        var title: String
        var explanation: String
        var date: String
        var url: String
    }

    struct Listing: Decodable {
        var name: String
        var width: Int
        var height: Int
        var mediaType: String
    }

    /// Noon UTC on 2024-03-15, so "today" does not move during a test.
    static let fixedNow = Date(timeIntervalSince1970: 1_710_504_000)

    static func photo(
        _ date: String,
        on server: RunningServer,
        query: [URLQueryItem] = []
    ) async throws -> Response<Data> {
        try await server.client.answer(.get("/photos", query: [URLQueryItem(name: "date", value: date)] + query))
    }

    @Test func aDateGetsThePhotoWithAnAbsoluteImageURL() async throws {
        try await withServer { server in
            let response = try await Self.photo("2024-03-15", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
            // Exactly APOD's four fields.
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
            #expect(Set(object.keys) == ["title", "explanation", "date", "url"])

            let photo: Photo = try response.decoded()
            #expect(photo.date == "2024-03-15")
            #expect(!photo.title.isEmpty)
            #expect(photo.explanation.count > 80)
            let prefix = "http://127.0.0.1:\(server.port)/images/"
            #expect(photo.url.hasPrefix(prefix))
            let listing: [Listing] = try await server.client.send(Request<Data>.get("/images")).decoded()
            #expect(listing.map(\.name).contains(String(photo.url.dropFirst(prefix.count))))
        }
    }

    @Test func aDateAlwaysGetsTheSamePhotoAndDaysDiffer() async throws {
        let dates = (1...20).map { "2023-07-\($0 < 10 ? "0" : "")\($0)" }
        let first = try await withServer { server in
            var photos: [Photo] = []
            for date in dates { photos.append(try await Self.photo(date, on: server).decoded()) }
            #expect(try await Self.photo(dates[0], on: server).decoded() == photos[0])
            return photos
        }
        // Another server (another port) tells the same story about the same picture.
        let second = try await withServer { server in
            var photos: [Photo] = []
            for date in dates { photos.append(try await Self.photo(date, on: server).decoded()) }
            return photos
        }
        func imageName(_ photo: Photo) -> Substring { photo.url.split(separator: "/").last ?? "" }
        #expect(first.map(\.title) == second.map(\.title))
        #expect(first.map(\.explanation) == second.map(\.explanation))
        #expect(first.map(imageName) == second.map(imageName))
        #expect(Set(first.map(imageName)).count >= 8)
        #expect(Set(first.map(\.title)).count >= 10)
    }

    @Test func thePhotosImageCanBeFetched() async throws {
        try await withServer { server in
            let listing: [Listing] = try await server.client.send(Request<Data>.get("/images")).decoded()
            let small = Set(listing.filter { $0.width * $0.height <= 480 * 320 }.map(\.name))
            // The first day of March 2024 whose picture is small (debug builds draw slowly).
            var found: (Photo, String)?
            for day in 1...31 where found == nil {
                let photo: Photo = try await Self.photo("2024-03-\(day < 10 ? "0" : "")\(day)", on: server).decoded()
                let name = String(photo.url.split(separator: "/").last ?? "")
                if small.contains(name) { found = (photo, name) }
            }
            let (photo, name) = try #require(found)
            let url = try #require(URL(string: photo.url))
            let image = try await server.client.send(Request<Data>.get(url.path))
            #expect(image.status == .ok)
            #expect(image.headerFields[.contentType] == listing.first { $0.name == name }?.mediaType)
            #expect(!image.body.isEmpty)
        }
    }

    @Test(arguments: [
        "2024-3-15", "2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "yesterday", "20240315",
        "2024-03-15T00:00", "",
    ])
    func aMalformedDateIsABadRequest(date: String) async throws {
        try await withServer { server in
            let response = try await Self.photo(date, on: server)
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }

    @Test func aMissingDateIsABadRequest() async throws {
        try await withServer { server in
            let response = try await server.client.answer(.get("/photos"))
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }

    @Test func datesRunFromTheFirstPhotoToToday() async throws {
        try await withServer({ $0.now = { Self.fixedNow } }) { server in
            for date in ["1995-06-16", "2000-02-29", "2024-03-15"] {
                #expect(try await Self.photo(date, on: server).status == .ok, "\(date)")
            }
            for date in ["1995-06-15", "1900-01-01", "2024-03-16", "9999-12-31"] {
                let response = try await Self.photo(date, on: server)
                #expect(response.status == .notFound, "\(date)")
                #expect(response.serverError?.code == "not_found")
            }
        }
    }

    @Test func failingPhotoDatesAnswer500() async throws {
        try await withServer({ $0.failingPhotoDates = ["2024-03-10", "2001-01-01"] }) { server in
            for date in ["2024-03-10", "2001-01-01"] {
                let response = try await Self.photo(date, on: server)
                #expect(response.status == .internalServerError)
                #expect(response.serverError?.code == "internal")
            }
            #expect(try await Self.photo("2024-03-11", on: server).status == .ok)
        }
    }

    @Test(arguments: [400, 404, 418, 500, 503])
    func theFailKnobAnswersThatStatusWithAJSONError(status: Int) async throws {
        try await withServer { server in
            let response = try await Self.photo(
                "2024-03-15",
                on: server,
                query: [URLQueryItem(name: "fail", value: "\(status)")]
            )
            #expect(response.status.code == status)
            #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
            #expect(response.serverError != nil)
        }
    }

    @Test func theDelayKnobStillAnswersAndIsBounded() async throws {
        try await withServer { server in
            let delayed = try await Self.photo(
                "2024-03-15",
                on: server,
                query: [URLQueryItem(name: "delay", value: "20")]
            )
            #expect(delayed.status == .ok)
            for (name, value) in [
                ("delay", "10001"), ("delay", "-1"), ("fail", "200"), ("fail", "600"), ("fail", "yes"),
            ] {
                let response = try await Self.photo(
                    "2024-03-15",
                    on: server,
                    query: [URLQueryItem(name: name, value: value)]
                )
                #expect(response.status == .badRequest, "\(name)=\(value)")
            }
        }
    }

    static func dates(_ server: RunningServer, _ query: [String: String]) async throws -> Response<Data> {
        try await server.client.answer(
            .get(
                "/photos/dates",
                query: query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            )
        )
    }

    @Test func datesAreDistinctInRangeAndFollowTheSeed() async throws {
        try await withServer({ $0.now = { Self.fixedNow } }) { server in
            let dates: [String] = try await Self.dates(server, ["count": "200", "seed": "42"]).decoded()
            #expect(dates.count == 200)
            #expect(Set(dates).count == 200)
            #expect(dates == dates.sorted())
            #expect(dates.allSatisfy { $0.count == 10 && $0 >= "1995-06-16" && $0 <= "2024-03-15" })
            // Each listed date has a photo.
            for date in dates.prefix(5) {
                #expect(try await Self.photo(date, on: server).status == .ok)
            }
            #expect(try await Self.dates(server, ["count": "200", "seed": "42"]).decoded() == dates)
            let other: [String] = try await Self.dates(server, ["count": "200", "seed": "43"]).decoded()
            #expect(other != dates)
            let one: [String] = try await Self.dates(server, ["count": "1"]).decoded()
            #expect(one.count == 1)
            let most: [String] = try await Self.dates(server, ["count": "500"]).decoded()
            #expect(Set(most).count == 500)
        }
    }

    @Test func aServerWithAPhotoSeedGivesEveryRequestWithoutOneItsDays() async throws {
        try await withServer({
            $0.now = { Self.fixedNow }
            $0.photoDateSeed = 7
        }) { server in
            let first: [String] = try await Self.dates(server, ["count": "12"]).decoded()
            #expect(try await Self.dates(server, ["count": "12"]).decoded() == first)
            #expect(try await Self.dates(server, ["count": "12", "seed": "7"]).decoded() == first)
            // A seed in the request still wins.
            let other: [String] = try await Self.dates(server, ["count": "12", "seed": "8"]).decoded()
            #expect(other != first)
        }
    }

    @Test(arguments: [
        ["count": "0"], ["count": "501"], ["count": "ten"], [:], ["count": "5", "seed": "-1"],
        ["count": "5", "seed": "x"],
    ])
    func aBadDatesRequestIsABadRequest(query: [String: String]) async throws {
        try await withServer { server in
            let response = try await Self.dates(server, query)
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }
}
