// Combine and async, both ways.

// snippet.hide
import BaselineCombine
import Foundation

struct Member: Sendable, Equatable {
    var id: String
}

enum APIClientError: Error {
    case server
    case other(any Error)

    init(_ error: any Error) {
        self = (error as? APIClientError) ?? .other(error)
    }
}

/// An API client from before async/await: every request is a publisher.
struct LegacyAPIClient: Sendable {
    func member() -> AnyPublisher<Member, APIClientError> {
        Just(Member(id: "astro")).setFailureType(to: APIClientError.self).eraseToAnyPublisher()
    }

    func favourites() -> AnyPublisher<Int, APIClientError> {
        [3, 4, 5].publisher.setFailureType(to: APIClientError.self).eraseToAnyPublisher()
    }
}

let legacy = LegacyAPIClient()

// snippet.show
// `legacy` is an API client from before async/await: each request returns an `AnyPublisher`.

// snippet.first
// One value: subscribes, resumes exactly once, and cancels the subscription
// when the calling task is cancelled.
let member = try await legacy.member().firstValue()
// snippet.end

// snippet.values
// Every value, as an AsyncSequence that ends when the publisher finishes.
for try await count in legacy.favourites().asyncValues {
    print("favourites:", count)
}
// snippet.end

// snippet.task
/// New async code offered to a pipeline that still expects publishers.
func memberPublisher(load: @escaping @Sendable () async throws -> Member) -> AnyPublisher<Member, APIClientError> {
    // The operation starts on demand; cancelling the subscription cancels its task.
    TaskPublisher(load)
        .mapError(APIClientError.init)
        .eraseToAnyPublisher()
}
// snippet.end

// snippet.sequence
let ticks = AsyncStream<Int> { continuation in
    for tick in 1...3 { continuation.yield(tick) }
    continuation.finish()
}
// Iterated once per subscriber, as fast as its demand allows.
let subscription = ticks.publisher
    .map { $0 * 10 }
    .sink(receiveCompletion: { print("done:", $0) }, receiveValue: { print($0) })
// snippet.end

// snippet.hide
_ = member
_ = memberPublisher { Member(id: "astro") }
subscription.cancel()
