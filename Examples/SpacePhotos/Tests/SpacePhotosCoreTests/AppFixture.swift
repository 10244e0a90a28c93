import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselinePersistence
import BaselineTesting
import Foundation
import SpacePhotosCore

/// The app's dependencies made of doubles: in-memory databases, a stub
/// transport for images, and sessions, logins and photos the test controls.
struct AppFixture: Sendable {
    /// What restoring the stored session answers, in order (a session
    /// check classifies it); an empty script answers nil.
    let sessions = LockedValue<[Result<User?, any Error>]>([])
    let logOuts = LockedValue(0)
    let auth = AuthServiceDouble()
    let images = StubTransport()
    /// Fact requests; answered at once unless `holdsFacts`.
    let factCalls = ControllableCall<Int, String>()
    let holdsFacts: Bool
    let member = User(
        id: User.ID(rawValue: "astro"),
        nickname: "Astro",
        birthday: Date(timeIntervalSince1970: 639_878_400)
    )
    let photos: [SpacePhoto]

    init(photos: [SpacePhoto] = AppFixture.samplePhotos, holdsFacts: Bool = false) {
        self.photos = photos
        self.holdsFacts = holdsFacts
    }

    static let samplePhotos: [SpacePhoto] = (1...3).map { index in
        SpacePhoto(
            title: "Photo \(index)",
            description: "The description of photo \(index).",
            date: Date(timeIntervalSince1970: Double(index) * 86_400),
            url: URL(string: "http://images.test/images/photo-\(index).png")!
        )
    }

    func dependencies() async throws -> AppDependencies {
        let (sessions, logOuts, member, photos, factCalls, holdsFacts) = (
            sessions, logOuts, member, photos, factCalls, holdsFacts
        )
        let todos = try await SQLiteDatabase.inMemory(migrator: TodoSchema.migrator)
        let saved = try await SQLiteDatabase.inMemory(migrator: SavedPhotoSchema.migrator)
        let auth = self.auth
        return AppDependencies(
            session: SessionClient(
                check: {
                    await SessionCheck.checking {
                        let next = sessions.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                        return try next?.get()
                    } forget: {
                        logOuts.withLock { $0 += 1 }
                    }
                },
                logIn: { id, password in try await auth.logIn(for: id, with: password) },
                logOut: { logOuts.withLock { $0 += 1 } },
                member: { member }
            ),
            photoSource: PhotoSource(
                randomDates: { _ in PhotoSource.Days(photos.map(\.date)) },
                photo: { date in
                    guard let photo = photos.first(where: { $0.date == date }) else {
                        throw URLError(.fileDoesNotExist)
                    }
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

/// A download the test holds, then answers; see ``AppFixture/holdDownloads(of:)``.
struct HeldDownloads: Sendable {
    let calls: ControllableCall<RecordedRequest, StubResponse>

    /// Answers every download, those already waiting first, until the
    /// returned task is cancelled.
    func answerEach(with answer: Result<StubResponse, any Error>) -> Task<Void, Never> {
        Task {
            while let call = try? await calls.nextCall() {
                switch answer {
                case let .success(response): call.resume(returning: response)
                case let .failure(error): call.resume(throwing: error)
                }
            }
        }
    }
}

extension AppFixture {
    /// Holds every download of `path` until the test answers them all.
    ///
    /// A photo's save and the list's prefetch may download its image once
    /// (sharing the run) or twice (one after the other), and the prefetch's
    /// request may come first: a test that answered only the first call
    /// could answer the prefetch and leave the save waiting forever. So a
    /// test waits for the model's state (`isSelectedSaving`), not for a
    /// call, and answers them all.
    func holdDownloads(of path: String) -> HeldDownloads {
        HeldDownloads(calls: images.hold(.get, path))
    }

    /// A PNG signature and three bytes: what the save stores (no decoding).
    static let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
}
