import BaselineHTTP
import BaselineImages
import BaselineTesting
import Foundation
import Testing

@Suite("ImagePipeline: downloads start by priority when they wait for a slot", .timeLimit(.minutes(1)))
struct ImagePriorityTests {
    let transport = StubTransport()

    func makePipeline() -> ImagePipeline {
        let client = HTTPClient(baseURL: PipelineFixture.baseURL, transport: transport)
        return ImagePipeline(
            client: client,
            configuration: ImagePipeline.Configuration(maximumConcurrentDownloads: 1)
        )
    }

    func url(_ name: String) -> URL { PipelineFixture.url("photos/\(name).png") }

    /// The paths the transport has been asked for, in order.
    var requestedPaths: [String] { transport.requests.map { $0.head.path ?? "" } }

    @Test func anImageOnScreenStartsBeforeEarlierPrefetches() async throws {
        let pipeline = makePipeline()
        let first = transport.hold(.get, "/photos/first.png")
        let prefetched = transport.hold(.get, "/photos/prefetched.png")
        let visible = transport.hold(.get, "/photos/visible.png")

        let firstLoad = Task { try await pipeline.image(for: url("first")) }
        let firstCall = try await first.nextCall()
        pipeline.prefetch([url("prefetched")])
        try await pipeline.waitUntilDownloadsQueue(atLeast: 1)
        let visibleLoad = Task { try await pipeline.image(for: url("visible")) }
        try await pipeline.waitUntilDownloadsQueue(atLeast: 2)

        firstCall.resume(returning: try PipelineFixture.png())
        _ = try await firstLoad.value
        // The one slot goes to the image on screen, though the prefetch asked first.
        let visibleCall = try await visible.nextCall()
        #expect(requestedPaths == ["/photos/first.png", "/photos/visible.png"])
        visibleCall.resume(returning: try PipelineFixture.png())
        _ = try await visibleLoad.value
        try await prefetched.nextCall().resume(returning: try PipelineFixture.png())
        #expect(requestedPaths.last == "/photos/prefetched.png")
    }

    @Test func aPrefetchWaitsAtLowPriorityWhateverItsRequestAsks() async throws {
        let pipeline = makePipeline()
        let first = transport.hold(.get, "/photos/first.png")
        let prefetched = transport.hold(.get, "/photos/prefetched.png")
        let visible = transport.hold(.get, "/photos/visible.png")

        let firstLoad = Task { try await pipeline.image(for: url("first")) }
        let firstCall = try await first.nextCall()
        pipeline.prefetch([ImageRequest(url("prefetched"), size: 300, priority: .high)])
        try await pipeline.waitUntilDownloadsQueue(atLeast: 1)
        let visibleLoad = Task { try await pipeline.image(for: ImageRequest(url("visible"), size: 300)) }
        try await pipeline.waitUntilDownloadsQueue(atLeast: 2)

        firstCall.resume(returning: try PipelineFixture.png())
        _ = try await firstLoad.value
        // The row on screen, at normal priority, goes before the prefetch that asked high.
        let visibleCall = try await visible.nextCall()
        #expect(requestedPaths == ["/photos/first.png", "/photos/visible.png"])
        visibleCall.resume(returning: try PipelineFixture.png())
        _ = try await visibleLoad.value
        try await prefetched.nextCall().resume(returning: try PipelineFixture.png())
    }

    @Test func joiningAWaitingPrefetchWithAHigherPriorityMovesItUp() async throws {
        let pipeline = makePipeline()
        let first = transport.hold(.get, "/photos/first.png")
        let early = transport.hold(.get, "/photos/early.png")
        let late = transport.hold(.get, "/photos/late.png")

        let firstLoad = Task { try await pipeline.image(for: url("first")) }
        let firstCall = try await first.nextCall()
        pipeline.prefetch([url("early")])
        try await pipeline.waitUntilDownloadsQueue(atLeast: 1)
        pipeline.prefetch([url("late")])
        try await pipeline.waitUntilDownloadsQueue(atLeast: 2)
        // The user scrolled to the late one: it joins its prefetch, raised to high.
        let lateLoad = Task {
            try await pipeline.image(for: ImageRequest(url("late"), priority: .high))
        }
        try await pipeline.waitUntilLoading(atLeast: 1)

        firstCall.resume(returning: try PipelineFixture.png())
        _ = try await firstLoad.value
        let lateCall = try await late.nextCall()
        #expect(requestedPaths == ["/photos/first.png", "/photos/late.png"])
        lateCall.resume(returning: try PipelineFixture.png())
        _ = try await lateLoad.value
        try await early.nextCall().resume(returning: try PipelineFixture.png())
    }

    @Test func aLoadCancelledWhileItWaitsNeverStarts() async throws {
        let pipeline = makePipeline()
        let first = transport.hold(.get, "/photos/first.png")
        let firstLoad = Task { try await pipeline.image(for: url("first")) }
        let firstCall = try await first.nextCall()
        let waiting = Task { try await pipeline.image(for: url("never")) }
        try await pipeline.waitUntilDownloadsQueue(atLeast: 1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        firstCall.resume(returning: try PipelineFixture.png())
        _ = try await firstLoad.value
        // A load queued after it starts next: the cancelled one left the line.
        let after = transport.hold(.get, "/photos/after.png")
        let afterLoad = Task { try await pipeline.image(for: url("after")) }
        try await after.nextCall().resume(returning: try PipelineFixture.png())
        _ = try await afterLoad.value
        #expect(requestedPaths == ["/photos/first.png", "/photos/after.png"])
    }
}
