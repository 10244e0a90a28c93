/// One event of the favourite-count feed: a photo and its new count. The
/// server's twin of the app's `PhotoMetadata` (the server does not depend on
/// the app's modules); the JSON is the same.
struct FavoriteEvent: Codable, Sendable, Equatable {
    var id: String
    var title: String
    var favoriteCount: Int
}
