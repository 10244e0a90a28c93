// Sharing one run of work among concurrent callers.

// snippet.hide
import BaselineConcurrency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Thumbnail: Sendable {
    var bytes: Data
}

func download(_ url: URL) async throws -> Thumbnail {
    let (data, _) = try await URLSession.shared.data(from: url)
    return Thumbnail(bytes: data)
}

let url = URL(string: "https://example.com/orion.jpg")!

// snippet.show
// snippet.basic
let thumbnails = TaskCoalescer<URL, Thumbnail>()

// Ten cells asking for one URL at once make one download; each gets the result.
let image = try await thumbnails.value(for: url) { try await download(url) }
// snippet.end

// snippet.refresh
/// Refreshes a session once, however many callers find it expired at the same time.
final class SessionRefresher: Sendable {
    // The refresh must finish even if every caller gives up: the server has
    // already rotated the refresh token, and the new one must be kept.
    private let refreshes = TaskCoalescer<String, String>(cancelsAbandonedWork: false)
    private let refresh: @Sendable (String) async throws -> String

    init(refresh: @escaping @Sendable (String) async throws -> String) {
        self.refresh = refresh
    }

    /// A new token for `expired`; callers with the same expired token share one refresh.
    func token(replacing expired: String) async throws -> String {
        try await refreshes.value(for: expired) { [refresh] in try await refresh(expired) }
    }
}
// snippet.end

// snippet.hide
_ = image
_ = SessionRefresher { _ in "fresh" }
