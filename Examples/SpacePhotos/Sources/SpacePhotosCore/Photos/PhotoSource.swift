import BaselineHTTP
import Foundation

/// Where the catalog's photos come from: a struct of closures, so tests swap
/// the live server for calls they control.
public struct PhotoSource: Sendable {
    /// `count` distinct days that have a photo.
    public var randomDates: @Sendable (_ count: Int) async throws -> Days
    /// The photo of a day.
    public var photo: @Sendable (_ date: Date) async throws -> SpacePhoto

    /// A source answering with the given closures (doubles in tests;
    /// ``live(client:serverOptions:)`` in the app).
    public init(
        randomDates: @escaping @Sendable (_ count: Int) async throws -> Days,
        photo: @escaping @Sendable (_ date: Date) async throws -> SpacePhoto
    ) {
        self.randomDates = randomDates
        self.photo = photo
    }
}

extension PhotoSource {
    /// The days of a catalog, and whether they are the last list the app
    /// kept, answered while the server could not be reached.
    public struct Days: Equatable, Sendable {
        /// The days, in the server's order.
        public var dates: [Date]
        /// Whether the server could not be reached, so the list is the one
        /// kept from the last time it could (``ResponseCache`` offline).
        public var isServedWhileOffline: Bool

        /// Days as the server gave them (`isServedWhileOffline` false) or as kept.
        public init(_ dates: [Date], isServedWhileOffline: Bool = false) {
            self.dates = dates
            self.isServedWhileOffline = isServedWhileOffline
        }
    }

    /// The example server's catalog endpoints.
    ///
    /// - Parameter serverOptions: Query items for the server's test knobs on
    ///   each photo request (`delay`, `fail`), for demos.
    public static func live(client: HTTPClient, serverOptions: [URLQueryItem] = []) -> PhotoSource {
        let api = PhotoAPI(client: client)
        return PhotoSource(
            randomDates: { count in try await api.randomDays(count: count) },
            photo: { date in try await api.photo(on: date, serverOptions: serverOptions) }
        )
    }
}
