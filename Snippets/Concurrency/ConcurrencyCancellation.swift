// Cancellation across Baseline: requests, effects, observations.

// snippet.hide
import BaselineConcurrency
import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import Testing

struct SpacePhoto: Decodable, Sendable {
    var title: String
}

let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:8080")!)

// snippet.show
// snippet.request
let load = Task {
    try await client.send(Request<[SpacePhoto]>.get("/photos"))
}
// Later: the screen closed. The transport stops the transfer, and `send`
// throws `CancellationError`, whatever the transport called it.
load.cancel()
// snippet.end

// snippet.catch
@MainActor
final class CatalogModel {
    private(set) var photos: [SpacePhoto] = []
    private(set) var errorMessage: String?

    func refresh() async {
        do {
            photos = try await client.send(Request<[SpacePhoto]>.get("/photos")).value
            errorMessage = nil
        } catch is CancellationError {
            // Not a failure: whoever cancelled knows why. Keep what is on screen.
        } catch {
            errorMessage = "The catalogue could not be loaded."
        }
    }
}
// snippet.end

// snippet.group
/// Fetches two days at once; if either fails, the other is cancelled, and
/// cancelling the caller cancels both.
func photos(for days: [String]) async throws -> [SpacePhoto] {
    try await withThrowingTaskGroup(of: SpacePhoto.self) { group in
        for day in days {
            group.addTask {
                try await client.send(Request<SpacePhoto>.get("/apod", query: [URLQueryItem(name: "date", value: day)]))
                    .value
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
// snippet.end

// snippet.effect
struct FactFeature: Reducer {
    struct State: Equatable {
        var count = 0
        var fact: String?
        var isLoading = false
    }

    enum Action: Sendable {
        case refresh
        case cancel
        case factLoaded(String)
    }

    private enum CancelID { case fact }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .refresh:
            state.isLoading = true
            return .run { [count = state.count] send in
                let fact = try await client.send(Request<String>.get("/facts/\(count)")).value
                await send(.factLoaded(fact))
            }
            // A second refresh replaces the first instead of racing it.
            .cancellable(id: CancelID.fact, cancelInFlight: true)
        case .cancel:
            state.isLoading = false
            return .cancel(id: CancelID.fact)
        case let .factLoaded(fact):
            state.isLoading = false
            state.fact = fact
            return .none
        }
    }
}
// snippet.end

// snippet.test
/// Where the gallery's photos come from; tests put a double behind it.
protocol PhotoSource: Sendable {
    func photos() async throws -> [SpacePhoto]
}

@MainActor
final class GalleryModel {
    private(set) var photos: [SpacePhoto] = []
    private let source: any PhotoSource

    init(source: any PhotoSource) {
        self.source = source
    }

    func refresh() async {
        do {
            photos = try await source.photos()
        } catch {
            // Cancelled or failed: keep what is on screen.
        }
    }
}

struct PhotoSourceDouble: PhotoSource {
    let load = ControllableCall<Void, [SpacePhoto]>()

    func photos() async throws -> [SpacePhoto] {
        try await load(())
    }
}

@MainActor
@Test func leavingTheScreenCancelsTheLoad() async throws {
    let source = PhotoSourceDouble()
    let model = GalleryModel(source: source)
    let loading = Task { await model.refresh() }

    let call = try await source.load.nextCall()  // the load is in flight
    loading.cancel()  // the screen goes away
    await loading.value

    #expect(call.isCancelled)
    #expect(model.photos.isEmpty)
}
// snippet.end

// snippet.hide
_ = try? await load.value
_ = try? await photos(for: ["2024-02-11"])
await CatalogModel().refresh()
_ = FactFeature()
