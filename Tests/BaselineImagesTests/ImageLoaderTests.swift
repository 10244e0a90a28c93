import BaselineImages
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@MainActor
@Suite("ImageLoader", .timeLimit(.minutes(1)))
struct ImageLoaderTests {
    let fixture = PipelineFixture()
    var transport: StubTransport { fixture.transport }
    let first = PipelineFixture.url("photos/1.png")
    let second = PipelineFixture.url("photos/2.png")

    func image(_ name: String) throws -> DecodedImage {
        try PNGDecoder().decode(try Fixture.data(name), limits: ImageDecodingLimits())
    }

    @Test func goesFromEmptyToSuccess() async throws {
        let held = transport.hold(.get, "/photos/1.png")
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        #expect(loader.phase == .empty)
        let url = first
        let load = Task { await loader.load(url) }
        let call = try await held.nextCall()
        #expect(loader.phase == .empty)
        call.resume(returning: try PipelineFixture.png())
        await load.value
        #expect(loader.phase == .success(try image("rgb.png")))
        #expect(loader.phase.image != nil && loader.phase.error == nil)
    }

    @Test func showsFailures() async throws {
        transport.on(.get, "/photos/1.png", respond: .status(.forbidden))
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        await loader.load(first)
        #expect(loader.phase == .failure(.badStatus(403)))
        #expect(loader.phase.error == .badStatus(403) && loader.phase.image == nil)
    }

    @Test func startsFromTheMemoryCache() async throws {
        transport.on(.get, "/photos/1.png", respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        _ = try await pipeline.image(for: first)
        let loader = ImageLoader(pipeline: pipeline)
        await loader.load(first)
        #expect(loader.phase == .success(try image("rgb.png")))
        #expect(transport.requests.count == 1)
    }

    @Test func loadsAtTheSizeAsked() async throws {
        transport.on(.get, "/photos/1.png", respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let loader = ImageLoader(pipeline: pipeline)
        await loader.load(ImageRequest(first, size: 2))
        #expect(loader.phase == .success(try image("rgb.png").resized(toFit: 2)))
        #expect(pipeline.cachedImage(for: ImageRequest(first, size: 2)) != nil)
        #expect(pipeline.cachedImage(for: first) == nil)
    }

    @Test func loadsARequestWholeAndRemembersIt() async throws {
        transport.on(.get, "/photos/1.png", respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let loader = ImageLoader(pipeline: pipeline)
        let request = ImageRequest(first, size: 2, processors: [.cropToSquare], priority: .high)
        await loader.load(request)
        #expect(loader.request == request)
        #expect(loader.url == first)
        let expected = try image("rgb.png").resized(toFit: 2).cropped(x: 0, y: 0, width: 1, height: 1)
        #expect(loader.phase == .success(expected))
        #expect(pipeline.cachedImage(for: request) == expected)
    }

    @Test func aReloadShowsNoCachedCopyWhileTheFreshImageLoads() async throws {
        transport.on(.get, "/photos/1.png", respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let loader = ImageLoader(pipeline: pipeline)
        await loader.load(first)
        #expect(loader.phase == .success(try image("rgb.png")))

        let held = transport.hold(.get, "/photos/1.png")
        let reload = ImageRequest(first, cachePolicy: .reloadIgnoringCachedData)
        let load = Task { await loader.load(reload) }
        let call = try await held.nextCall()
        #expect(loader.phase == .empty)
        #expect(loader.request == reload)
        call.resume(returning: try PipelineFixture.png("gray.png"))
        await load.value
        #expect(loader.phase == .success(try image("gray.png")))
    }

    @Test func aCachedOnlyRequestThatMissesFails() async throws {
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        await loader.load(ImageRequest(first, cachePolicy: .returnCacheDataDontLoad))
        #expect(loader.phase == .failure(.notCached))
        #expect(transport.requests.isEmpty)
    }

    @Test func aNewLoadSupersedesThePreviousOne() async throws {
        let held = transport.hold(.get, "/photos/1.png")
        transport.on(.get, "/photos/2.png", respond: try PipelineFixture.png("gray.png"))
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        let url = first
        let firstLoad = Task { await loader.load(url) }
        let call = try await held.nextCall()

        await loader.load(second)
        #expect(loader.phase == .success(try image("gray.png")))
        // The first load was cancelled, and its end changes nothing.
        #expect(call.isCancelled)
        await firstLoad.value
        #expect(loader.phase == .success(try image("gray.png")))
    }

    @Test func aNewSizeOfTheSameURLSupersedesTheOldSize() async throws {
        let held = transport.hold(.get, "/photos/1.png")
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        let url = first
        let small = Task { await loader.load(ImageRequest(url, size: 1)) }
        let call = try await held.nextCall()
        // The view grew: the same URL at another size is a new request.
        let large = Task { await loader.load(ImageRequest(url, size: 2)) }
        let second = try await held.nextCall()
        #expect(call.isCancelled)
        second.resume(returning: try PipelineFixture.png())
        await large.value
        await small.value
        #expect(loader.request == ImageRequest(url, size: 2))
        #expect(loader.phase == .success(try image("rgb.png").resized(toFit: 2)))
    }

    @Test func aCancelledLoadGoesBackToEmpty() async throws {
        let held = transport.hold(.get, "/photos/1.png")
        transport.on(.get, "/photos/2.png", respond: try PipelineFixture.png("gray.png"))
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        await loader.load(second)
        let url = first
        let load = Task { await loader.load(url) }
        let call = try await held.nextCall()
        #expect(loader.phase == .empty)

        load.cancel()
        await load.value
        #expect(loader.phase == .empty)
        #expect(call.isCancelled)
    }

    @Test func loadingNilClears() async throws {
        transport.on(.get, "/photos/1.png", respond: try PipelineFixture.png())
        let loader = ImageLoader(pipeline: fixture.makePipeline())
        await loader.load(first)
        #expect(loader.phase.image != nil)
        await loader.load(nil)
        #expect(loader.phase == .empty)
    }
}
