import Hummingbird

/// The space pictures the photos point at.
///
/// - `GET /images` → `[{"name", "width", "height", "mediaType"}]`: the catalogue.
/// - `GET /images/{name}` → the file, `image/jpeg` or `image/png`, with
///   `Content-Length`, a strong `ETag` naming the bytes and `Cache-Control:
///   public, max-age=86400`; a matching `If-None-Match` gets 304. Drawn on
///   first request and kept (see ``ImageStore``). Also `corrupt.png`,
///   `garbage.jpg` and `huge.png` (see ``BrokenImages``), which are not listed.
///   Test knobs: `?delay=<ms>` and `?fail=<status>`.
struct ImageRoutes: Sendable {
    let store: ImageStore

    /// A day: the pictures never change for a name.
    static let cacheControl = "public, max-age=86400"

    struct Listing: Codable, Sendable, Equatable {
        var name: String
        var width: Int
        var height: Int
        var mediaType: String
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("images") { _, _ -> Response in
            try .json(
                ImageCatalog.images.map {
                    Listing(name: $0.name, width: $0.width, height: $0.height, mediaType: $0.format.mediaType)
                }
            )
        }

        router.get("images/:name") { request, context -> Response in
            try await request.applyTestKnobs()
            let name = context.parameters.get("name") ?? ""
            guard let recipe = ImageRecipe(name: name) else {
                throw APIError(
                    .notFound,
                    code: "not_found",
                    message: "No image is named \(name.prefix(128)). GET /images lists them."
                )
            }
            guard let image = await store.image(recipe) else {
                throw APIError(.internalServerError, code: "internal", message: "The image \(name) could not be drawn.")
            }
            return image.response(to: request, cacheControl: Self.cacheControl)
        }
    }
}
