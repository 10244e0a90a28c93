import BaselineHTTP
import BaselineOpenAPI
import Foundation
import SpacePhotosAPI

/// The catalog endpoints of the example server.
///
/// A photo comes through the client generated from `openapi.json`: its query
/// is typed and its documented statuses are cases. The list of days is a
/// hand-written request, as it reads what the response cache marked on the
/// response head, which the generated code does not see (see
/// ``randomDays(count:seed:)``).
public struct PhotoAPI: Sendable {
    /// The client the requests go through (its base URL is the server's).
    public let client: HTTPClient
    /// The generated client, on ``client``.
    let api: Client

    /// The endpoints on `client`.
    public init(client: HTTPClient) {
        self.client = client
        self.api = Client(on: client)
    }

    /// The photo of `date`'s day (`GET /photos?date=yyyy-MM-dd`).
    ///
    /// - Parameter serverOptions: The server's test knobs, `delay` and
    ///   `fail` (whole numbers), for demos and tests.
    /// - Throws: ``HTTPClientError`` (for a status other than 200,
    ///   ``HTTPClientError/unacceptableStatus(_:body:)`` with the server's
    ///   error document, as for any request), or `CancellationError`.
    public func photo(on date: Date, serverOptions: [URLQueryItem] = []) async throws -> SpacePhoto {
        if let unknown = serverOptions.first(where: { !["delay", "fail"].contains($0.name) }) {
            throw HTTPClientError.invalidRequest(reason: "GET /photos has no server option \"\(unknown.name)\"")
        }
        let query = Operations.Photo.Input.Query(
            date: PhotoDay.string(from: date),
            delay: try Self.knob("delay", in: serverOptions),
            fail: try Self.knob("fail", in: serverOptions)
        )
        return try await withHTTPClientErrors { try SpacePhoto(await api.photo(query: query).ok.body.json) }
    }

    /// `count` distinct random days that have a photo (`GET /photos/dates`);
    /// the same `seed` gives the same days.
    public func randomDates(count: Int, seed: UInt64? = nil) async throws -> [Date] {
        try await randomDays(count: count, seed: seed).dates
    }

    /// ``randomDates(count:seed:)``, saying whether the list was kept from
    /// an earlier answer because the server could not be reached.
    public func randomDays(count: Int, seed: UInt64? = nil) async throws -> PhotoSource.Days {
        // Hand-written, not the generated `photoDates`: the offline mark is
        // a header field the response cache adds to the head, and generated
        // code sees only the fields the document lists (this one is the
        // client's, not the server's). The seed is a UInt64 here, too, where
        // the generated query has an Int.
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

    /// The whole number `name` is set to in `options`, the last if it is
    /// set more than once; `nil` when it is not set.
    ///
    /// - Throws: ``HTTPClientError/invalidRequest(reason:)`` for a value
    ///   that is not a whole number.
    private static func knob(_ name: String, in options: [URLQueryItem]) throws -> Int? {
        guard let option = options.last(where: { $0.name == name }) else { return nil }
        guard let value = option.value.flatMap({ Int($0) }) else {
            throw HTTPClientError.invalidRequest(
                reason: "the server option \(name) takes a whole number, not \"\(option.value ?? "")\""
            )
        }
        return value
    }
}

/// The server sent a day that is not `yyyy-MM-dd`.
public struct PhotoDayError: Error, Sendable, CustomStringConvertible {
    /// What the server sent instead.
    public var text: String
    /// The text the server sent and the format it should have had.
    public var description: String { "\"\(text)\" is not a day written yyyy-MM-dd" }
}
