import BaselineHTTP
import Foundation

/// The catalog endpoints of the example server.
public struct PhotoAPI: Sendable {
    /// The client the requests go through (its base URL is the server's).
    public let client: HTTPClient

    /// The endpoints on `client`.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// The photo of `date`'s day (`GET /photos?date=yyyy-MM-dd`).
    ///
    /// - Parameter serverOptions: Query items for the server's test knobs
    ///   (`delay`, `fail`), for demos and tests.
    public func photo(on date: Date, serverOptions: [URLQueryItem] = []) async throws -> SpacePhoto {
        let query = [URLQueryItem(name: "date", value: PhotoDay.string(from: date))] + serverOptions
        return try await client.send(Request<SpacePhoto>.get("/photos", query: query)).value
    }

    /// `count` distinct random days that have a photo (`GET /photos/dates`);
    /// the same `seed` gives the same days.
    public func randomDates(count: Int, seed: UInt64? = nil) async throws -> [Date] {
        try await randomDays(count: count, seed: seed).dates
    }

    /// ``randomDates(count:seed:)``, saying whether the list was kept from
    /// an earlier answer because the server could not be reached.
    public func randomDays(count: Int, seed: UInt64? = nil) async throws -> PhotoSource.Days {
        var query = [URLQueryItem(name: "count", value: String(count))]
        if let seed { query.append(URLQueryItem(name: "seed", value: String(seed))) }
        let response = try await client.send(Request<[String]>.get("/photos/dates", query: query))
        let dates = try response.value.map { day in
            guard let date = PhotoDay.date(from: day) else {
                throw HTTPClientError.decodingFailed(underlying: PhotoDayError(text: day), bodyExcerpt: day)
            }
            return date
        }
        return PhotoSource.Days(dates, isServedWhileOffline: response.isServedWhileOffline)
    }
}

/// The server sent a day that is not `yyyy-MM-dd`.
public struct PhotoDayError: Error, Sendable, CustomStringConvertible {
    /// What the server sent instead.
    public var text: String
    /// The text the server sent and the format it should have had.
    public var description: String { "\"\(text)\" is not a day written yyyy-MM-dd" }
}
