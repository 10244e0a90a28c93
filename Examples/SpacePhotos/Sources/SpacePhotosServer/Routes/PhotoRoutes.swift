import Foundation
import Hummingbird

/// The photo of the day (NASA's Astronomy Picture of the Day, served locally).
///
/// - `GET /photos?date=yyyy-MM-dd` → `{"title", "explanation", "date", "url"}`,
///   where `url` is the absolute URL of one of ``ImageCatalog``'s pictures on
///   this server (built from the request's `Host`). Each date always gets the
///   same picture and text. Dates run from 1995-06-16 (the first APOD) to
///   today (UTC, by ``ExampleServer/Configuration/now``): 400 for a malformed
///   date, 404 outside that range, 500 for ``ExampleServer/Configuration/failingPhotoDates``.
///   Test knobs: `?delay=<ms>` and `?fail=<status>` (see `applyTestKnobs`).
/// - `GET /photos/dates?count=N[&seed=S]` → N distinct dates in that range
///   (1…500), in order: the same for the same seed (and day), random without
///   one unless ``ExampleServer/Configuration/photoDateSeed`` is set.
struct PhotoRoutes: Sendable {
    let failingDates: Set<String>
    let defaultSeed: UInt64?
    let now: @Sendable () -> Date

    static let firstDay = CalendarDay(year: 1995, month: 6, day: 16)
    static let maximumDateCount = 500

    struct Photo: Codable, Sendable, Equatable {
        var title: String
        var explanation: String
        var date: String
        var url: String
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("photos") { request, _ -> Response in
            try await request.applyTestKnobs()
            guard let text = request.uri.queryParameters.get("date") else {
                throw APIError(.badRequest, code: "bad_request", message: "date is required, as yyyy-MM-dd.")
            }
            guard let day = CalendarDay(parsing: String(text)) else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "date must be a real date written yyyy-MM-dd."
                )
            }
            if failingDates.contains(day.description) {
                throw APIError(
                    .internalServerError,
                    code: "internal",
                    message: "The photo for \(day) fails on purpose (failingPhotoDates)."
                )
            }
            let today = self.today
            guard day >= Self.firstDay, day <= today else {
                throw APIError(
                    .notFound,
                    code: "not_found",
                    message: "There are photos from \(Self.firstDay) to \(today) only."
                )
            }
            return try .json(Self.photo(on: day, authority: try Self.authority(of: request)))
        }

        router.get("photos/dates") { request, _ -> Response in
            guard let count = try request.integerParameter("count", in: 1...Self.maximumDateCount) else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "count is required: an integer from 1 to \(Self.maximumDateCount)."
                )
            }
            var seed = defaultSeed ?? UInt64.random(in: .min ... .max)
            if let text = request.uri.queryParameters.get("seed") {
                guard let value = UInt64(text) else {
                    throw APIError(
                        .badRequest,
                        code: "bad_request",
                        message: "seed must be an integer from 0 to \(UInt64.max)."
                    )
                }
                seed = value
            }
            return try .json(Self.dates(count: count, seed: seed, through: today).map(\.description))
        }
    }

    /// Today in UTC, by the server's clock.
    var today: CalendarDay {
        CalendarDay(secondsSince1970: now().timeIntervalSince1970)
    }

    /// The picture shown on `day`: a hash of the day, so neighbouring days differ.
    static func image(on day: CalendarDay) -> CatalogImage {
        let images = ImageCatalog.images
        return images[
            Int(SplitMix64.value(at: UInt64(bitPattern: Int64(day.number)), seed: 0xA90D) % UInt64(images.count))
        ]
    }

    static func photo(on day: CalendarDay, authority: String) -> Photo {
        let image = image(on: day)
        return Photo(
            title: PhotoCaption.title(for: image, on: day),
            explanation: PhotoCaption.explanation(for: image, on: day),
            date: day.description,
            url: "http://\(authority)/images/\(image.name)"
        )
    }

    /// `count` distinct days from ``firstDay`` through `last`, in order
    /// (fewer if the range is shorter), drawn by `seed`.
    static func dates(count: Int, seed: UInt64, through last: CalendarDay) -> [CalendarDay] {
        let span = last.number - firstDay.number + 1
        guard span > 0 else { return [] }
        var random = SplitMix64(seed: seed)
        var picked: Set<Int> = []
        while picked.count < min(count, span) {
            picked.insert(firstDay.number + Int(random.next() % UInt64(span)))
        }
        return picked.sorted().map(CalendarDay.init(number:))
    }

    /// The host (and port) the client reached us at, for absolute image URLs;
    /// 400 when missing, or when it holds anything but host-name characters,
    /// since it goes into the answer.
    static func authority(of request: Request) throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard let authority = request.head.authority,
            (1...255).contains(authority.count), authority.allSatisfy(allowed.contains)
        else {
            throw APIError(
                .badRequest,
                code: "bad_request",
                message: "The request needs a Host header naming this server."
            )
        }
        return authority
    }
}
