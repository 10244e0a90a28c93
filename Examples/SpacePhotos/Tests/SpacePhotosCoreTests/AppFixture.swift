import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselinePersistence
import BaselineTesting
import Foundation
import SpacePhotosCore

/// An ``AppModel``'s dependencies made of doubles: in-memory databases, a
/// stub transport for images, and sessions, logins and photos the test
/// controls.
struct AppFixture: Sendable {
    /// What `restoreSession` answers, in order; an empty script answers nil.
    let sessions = LockedValue<[Result<User?, any Error>]>([])
    let logOuts = LockedValue(0)
    let auth = AuthServiceDouble()
    let images = StubTransport()
    /// Fact requests; answered at once unless `holdsFacts`.
    let factCalls = ControllableCall<Int, String>()
    let holdsFacts: Bool
    let member = User(id: User.ID(rawValue: "astro"), nickname: "Astro", birthday: Date(timeIntervalSince1970: 639_878_400))
    let photos: [SpacePhoto]

    init(photos: [SpacePhoto] = AppFixture.samplePhotos, holdsFacts: Bool = false) {
        self.photos = photos
        self.holdsFacts = holdsFacts
    }

    static let samplePhotos: [SpacePhoto] = (1...3).map { index in
        SpacePhoto(
            title: "Photo \(index)", description: "The description of photo \(index).",
            date: Date(timeIntervalSince1970: Double(index) * 86_400),
            url: URL(string: "http://images.test/images/photo-\(index).png")!
        )
    }

    func dependencies() async throws -> AppDependencies {
        let (sessions, logOuts, member, photos, factCalls, holdsFacts) = (sessions, logOuts, member, photos, factCalls, holdsFacts)
        let todos = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let saved = try await SQLiteDatabase.inMemory(migrator: SavedPhotoSchema.migrator)
        return AppDependencies(
            auth: auth,
            restoreSession: {
                let next = sessions.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                return try next?.get()
            },
            logOut: { logOuts.withLock { $0 += 1 } },
            fetchMember: { member },
            photoSource: PhotoSource(
                randomDates: { _ in photos.map(\.date) },
                photo: { date in
                    guard let photo = photos.first(where: { $0.date == date }) else { throw URLError(.fileDoesNotExist) }
                    return photo
                }
            ),
            pipeline: ImagePipeline(client: HTTPClient(baseURL: URL(string: "http://images.test")!, transport: images)),
            savedPhotos: SavedPhotoRepository(database: saved),
            todos: TodoRepository(database: todos),
            facts: FactClient { number in
                holdsFacts ? try await factCalls(number) : "\(number) is a number."
            }
        )
    }
}
