// BaselineConcurrency in four steps: the landing page's example.

// snippet.hide
import BaselineConcurrency
import Foundation
import Observation

// A coalescer's key is hashed on any thread: `nonisolated` keeps its
// conformances off the main actor in an app whose code is main-actor
// isolated by default (and changes nothing elsewhere).
nonisolated struct UserID: Hashable, Sendable {
    var rawValue: String
}

struct Profile: Sendable {
    var name: String
}

/// An SDK from before async/await: completion handlers and a cancellable handle.
final class PresenceSDK: Sendable {
    struct Handle: Sendable {
        let cancel: @Sendable () -> Void
    }

    func fetchProfile(_ id: UserID, completion: @escaping @Sendable (Result<Profile, any Error>) -> Void) -> Handle {
        let task = Task {
            do {
                try await Task.sleep(for: .milliseconds(50))
                completion(.success(Profile(name: id.rawValue)))
            } catch {
                completion(.failure(error))
            }
        }
        return Handle { task.cancel() }
    }

    func presence(of id: UserID) -> AsyncStream<Bool> {
        AsyncStream { continuation in
            continuation.yield(true)
            continuation.finish()
        }
    }
}

let sdk = PresenceSDK()

// snippet.show
// 1. Bridge the callback API: one result, and cancellation reaches the request.
func fetchProfile(_ id: UserID) async throws -> Profile {
    try await withCallback { completion in
        let handle = sdk.fetchProfile(id, completion: completion.resume(with:))
        return CallbackCancellation { handle.cancel() }
    }
}

// 2. Share work in flight: ten views asking for one profile make one call.
let profiles = TaskCoalescer<UserID, Profile>()

func loadProfile(_ id: UserID) async throws -> Profile {
    try await profiles.value(for: id) { try await fetchProfile(id) }
}

// 3. Observe for exactly as long as the owner lives.
@MainActor
@Observable
final class ProfileModel {
    private(set) var profile: Profile?
    private(set) var isOnline = false
    @ObservationIgnored private var presence: StreamObserver?

    init(id: UserID) {
        presence = StreamObserver(observing: { sdk.presence(of: id) }) { [weak self] online in
            await self?.setOnline(online)
        }
        presence?.start()
    }

    func load(_ id: UserID) async throws {
        profile = try await loadProfile(id)
    }

    private func setOnline(_ online: Bool) {
        isOnline = online
    }
}

// 4. Wait for a change without polling, in a test or a tool.
let model = ProfileModel(id: UserID(rawValue: "astro"))
try await model.load(UserID(rawValue: "astro"))
try await waitUntil(model) { $0.isOnline }
