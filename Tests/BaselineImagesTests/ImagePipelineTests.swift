import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("ImagePipeline", .timeLimit(.minutes(1)))
struct ImagePipelineTests {
    let fixture = PipelineFixture()
    var transport: StubTransport { fixture.transport }
    let url = PipelineFixture.url("photos/1.png")
    let path = "/photos/1.png"

    func expected() throws -> DecodedImage {
        try PNGDecoder().decode(try Fixture.data("rgb.png"), limits: ImageDecodingLimits())
    }

    /// Starts `count` loads of `url` and returns once they all wait for the
    /// one download, which has reached the transport.
    func startLoads(
        _ count: Int,
        on pipeline: ImagePipeline,
        held: ControllableCall<RecordedRequest, StubResponse>
    ) async throws -> ([Task<DecodedImage, any Error>], ControllableCall<RecordedRequest, StubResponse>.Invocation) {
        let url = self.url
        let tasks = (0..<count).map { _ in Task { try await pipeline.image(for: url) } }
        let call = try await held.nextCall()
        try await pipeline.waitUntilLoading(atLeast: count)
        return (tasks, call)
    }

    // MARK: Loading

    @Test func loadsDecodesAndCachesInMemory() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        #expect(pipeline.cachedImage(for: url) == nil)
        let image = try await pipeline.image(for: url)
        #expect(image == (try expected()))
        #expect(pipeline.cachedImage(for: url) == image)
        // Served from memory: no second request or decode.
        #expect(try await pipeline.image(for: url) == image)
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
        let request = try #require(transport.requests.first)
        #expect(request.headerFields[.accept]?.hasPrefix("image/png") == true)
    }

    @Test func decodesJPEGToo() async throws {
        transport.on(.get, "/photos/2.jpg", respond: StubResponse(body: try Fixture.data("color.jpg")))
        let image = try await fixture.makePipeline().image(for: PipelineFixture.url("photos/2.jpg"))
        #expect(close(image.pixel(x: 0, y: 0), RGBA(r: 255, g: 0, b: 0)))
    }

    // MARK: Thumbnails

    @Test func aThumbnailIsDecodedToFitAndCachedApartFromTheFullImage() async throws {
        let path = "/photos/2.jpg"
        let url = PipelineFixture.url("photos/2.jpg")
        transport.on(.get, path, respond: StubResponse(body: try Fixture.data("color.jpg")))
        let pipeline = fixture.makePipeline()

        let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 8))
        #expect(thumbnail.width == 8 && thumbnail.height == 4)
        #expect(close(thumbnail.pixel(x: 0, y: 0), RGBA(r: 255, g: 0, b: 0)))
        #expect(pipeline.cachedImage(for: ImageRequest(url, size: 8)) == thumbnail)
        #expect(pipeline.cachedImage(for: url) == nil)

        let full = try await pipeline.image(for: url)
        #expect(full.width == 32 && full.height == 16)
        #expect(pipeline.memoryCache.count == 2)
        #expect(pipeline.cachedImage(for: ImageRequest(url, size: 16)) == nil)
        // Without a disk cache, a later load of another size downloads again
        // (loads at the same time share one download: see below).
        #expect(transport.requests.count == 2)
    }

    @Test func concurrentLoadsOfTwoSizesShareOneDownload() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let url = self.url
        let full = Task { try await pipeline.image(for: url) }
        let small = Task { try await pipeline.image(for: ImageRequest(url, size: 2)) }
        let call = try await held.nextCall()
        try await pipeline.waitUntilLoadingData(atLeast: 2)
        call.resume(returning: try PipelineFixture.png())
        #expect(try await full.value == (try expected()))
        let thumbnail = try await small.value
        #expect(thumbnail.width == 2 && thumbnail.height == 1)
        #expect(thumbnail == (try expected()).resized(toFit: 2))
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 2)
    }

    @Test func aThumbnailIsShrunkFromTheFullImageInMemory() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let full = try await pipeline.image(for: url)
        let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 2))
        #expect(thumbnail == full.resized(toFit: 2))
        // Neither downloaded nor decoded again.
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
    }

    @Test func processorsRunOnceAndTheirResultIsCachedUnderItsOwnKey() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let runs = LockedValue(0)
        let counted = ImageProcessor(identifier: "counted") { image in
            runs.withLock { $0 += 1 }
            return image
        }
        let processors = [ImageProcessor.cropToSquare, counted]
        let square = try await pipeline.image(for: ImageRequest(url, processors: processors))
        #expect(square.width == 2 && square.height == 2)
        #expect(try await pipeline.image(for: ImageRequest(url, processors: processors)) == square)
        #expect(pipeline.cachedImage(for: ImageRequest(url, processors: processors)) == square)
        #expect(runs.current == 1)
        // Another list of processors is another key; the original is not cached by either.
        #expect(pipeline.cachedImage(for: ImageRequest(url, processors: [.cropToSquare])) == nil)
        #expect(pipeline.cachedImage(for: url) == nil)
        #expect(try await pipeline.image(for: url) == (try expected()))
        #expect(transport.requests.count == 2)
    }

    #if !canImport(ImageIO)  // ImageIO decodes whole: the limits apply to the full size there
    @Test func aThumbnailOfAnImageOverThePixelLimitCanStillBeDecoded() async throws {
        // The limit applies to what is decoded: 1/4 of the JPEG's sides is
        // within it, the whole image is not.
        transport.on(.get, "/photos/2.jpg", respond: StubResponse(body: try Fixture.data("color.jpg")))
        let client = HTTPClient(baseURL: PipelineFixture.baseURL, transport: transport)
        let pipeline = ImagePipeline(
            client: client,
            configuration: ImagePipeline.Configuration(limits: ImageDecodingLimits(maximumPixelCount: 100))
        )
        let url = PipelineFixture.url("photos/2.jpg")
        let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 8))
        #expect(thumbnail.width == 8)
        await #expect(throws: ImageError.self) { try await pipeline.image(for: url) }
    }
    #endif

    @Test func keepsTheQueryOfTheURL() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let url = try #require(URL(string: "https://images.test/photos/1.png?size=large&v=2"))
        _ = try await fixture.makePipeline().image(for: url)
        let request = try #require(transport.requests.first)
        #expect(request.query == [URLQueryItem(name: "size", value: "large"), URLQueryItem(name: "v", value: "2")])
    }

    @Test func aHundredConcurrentLoadsShareOneDownloadAndOneDecode() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let (tasks, call) = try await startLoads(100, on: pipeline, held: held)
        call.resume(returning: try PipelineFixture.png())
        let expected = try expected()
        for task in tasks {
            #expect(try await task.value == expected)
        }
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
    }

    @Test func dataAndImageShareOneDownload() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let url = self.url
        let image = Task { try await pipeline.image(for: url) }
        let call = try await held.nextCall()
        let data = Task { try await pipeline.data(for: url) }
        try await pipeline.waitUntilLoadingData(atLeast: 2)
        call.resume(returning: try PipelineFixture.png())
        #expect(try await data.value == (try Fixture.data("rgb.png")))
        #expect(try await image.value == (try expected()))
        #expect(transport.requests.count == 1)
    }

    // MARK: Cancellation

    @Test func cancellingOneWaiterLeavesTheOthersAndTheDownload() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let (tasks, call) = try await startLoads(3, on: pipeline, held: held)

        tasks[0].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[0].value }
        #expect(!call.isCancelled)

        call.resume(returning: try PipelineFixture.png())
        #expect(try await tasks[1].value == (try expected()))
        #expect(try await tasks[2].value == (try expected()))
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
    }

    @Test func cancellingEveryWaiterCancelsTheDownload() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let (tasks, call) = try await startLoads(3, on: pipeline, held: held)

        for task in tasks { task.cancel() }
        for task in tasks {
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(call.isCancelled)
        #expect(fixture.decoder.decodes.current == 0)

        // A later load starts afresh instead of joining the cancelled one.
        let url = self.url
        let again = Task { try await pipeline.image(for: url) }
        try await held.nextCall().resume(returning: try PipelineFixture.png())
        #expect(try await again.value == (try expected()))
        #expect(transport.requests.count == 2)
    }

    // MARK: Errors

    @Test func aBadStatusIsBadStatus() async throws {
        transport.on(.get, path, respond: .status(.notFound))
        await #expect(throws: ImageError.badStatus(404)) { try await fixture.makePipeline().image(for: url) }
    }

    @Test func dataOverTheMaximumSizeIsTooLarge() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline(maximumDataSize: 50)
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard case let .tooLarge(message) = error as? ImageError else { return false }
            return message.contains("50 bytes")
        }
    }

    @Test func aPixelCountOverTheLimitIsTooLarge() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let client = HTTPClient(baseURL: PipelineFixture.baseURL, transport: transport)
        let pipeline = ImagePipeline(
            client: client,
            configuration: .init(limits: ImageDecodingLimits(maximumPixelCount: 4))
        )
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard case let .tooLarge(message) = error as? ImageError else { return false }
            return message.contains("4×2")
        }
    }

    @Test func bytesNoDecoderKnowsAreUnsupported() async throws {
        transport.on(.get, path, respond: .text("<html>not found</html>", contentType: "text/html"))
        let pipeline = fixture.makePipeline()
        await #expect(throws: ImageError.unsupportedImage(mediaType: "text/html")) {
            try await pipeline.image(for: url)
        }
        await #expect(throws: ImageError.unsupportedImage(mediaType: "text/html")) { try await pipeline.data(for: url) }
    }

    @Test func garbageLabelledAsAnImageIsUnsupported() async throws {
        let garbage = Data("GIF89a, or not quite".utf8)
        transport.on(.get, path, respond: StubResponse(headerFields: [.contentType: "image/jpeg"], body: garbage))
        await #expect(throws: ImageError.unsupportedImage(mediaType: "image/jpeg")) {
            try await fixture.makePipeline().image(for: url)
        }
    }

    @Test func aStreamedBodyDeclaredOverTheMaximumSizeIsTooLargeAtOnce() async throws {
        // Declared 10 MB, never sent: the limit applies from the declared length.
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        defer { feed.finish() }
        transport.on(
            .get,
            path,
            respond: .streaming(chunks, headerFields: [.contentType: "image/png"], length: 10_000_000)
        )
        await #expect {
            try await fixture.makePipeline(maximumDataSize: 1_000).image(for: url)
        } throws: { error in
            guard case .tooLarge = error as? ImageError else { return false }
            return true
        }
    }

    @Test func corruptBytesAreCorruptAndNotKeptOnDisk() async throws {
        let directory = try TemporaryDirectory(prefix: "image-pipeline")
        let disk = try DiskImageCache(directory: directory.url, limit: 1 << 20)
        let truncated = try Fixture.data("rgb.png").prefix(40)
        transport.on(
            .get,
            path,
            respond: StubResponse(headerFields: [.contentType: "image/png"], body: Data(truncated))
        )
        let pipeline = fixture.makePipeline(diskCache: disk)
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard case .corruptImage = error as? ImageError else { return false }
            return true
        }
        #expect(await disk.data(for: url) == nil)
    }

    @Test func aTransportFailureIsTransport() async throws {
        // No route: the stub transport fails the request.
        await #expect {
            try await fixture.makePipeline().image(for: url)
        } throws: { error in
            guard case .transport = error as? ImageError else { return false }
            return true
        }
    }

    // MARK: Disk cache

    @Test func aNewPipelineServesFromTheDiskWithoutTheNetwork() async throws {
        let directory = try TemporaryDirectory(prefix: "image-pipeline")
        transport.on(.get, path, respond: try PipelineFixture.png())
        let first = fixture.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
        let image = try await first.image(for: url)
        #expect(transport.requests.count == 1)

        // A "restart": new cache object, new pipeline, a transport with no routes.
        let offline = PipelineFixture()
        let restarted = offline.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
        #expect(restarted.cachedImage(for: url) == nil)
        #expect(try await restarted.image(for: url) == image)
        #expect(try await restarted.data(for: url) == (try Fixture.data("rgb.png")))
        #expect(offline.transport.requests.isEmpty)
    }

    @Test func removeAllCachedImagesEmptiesBothCaches() async throws {
        let directory = try TemporaryDirectory(prefix: "image-pipeline")
        let disk = try DiskImageCache(directory: directory.url, limit: 1 << 20)
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline(diskCache: disk)
        _ = try await pipeline.image(for: url)
        await pipeline.removeAllCachedImages()
        #expect(pipeline.cachedImage(for: url) == nil)
        #expect(await disk.totalSize == 0)
        _ = try await pipeline.image(for: url)
        #expect(transport.requests.count == 2)
    }

    @Test func theMemoryCacheEvictsByBytes() async throws {
        for index in 1...3 {
            transport.on(.get, "/photos/\(index).png", respond: try PipelineFixture.png())
        }
        // Room for two 4×2 images (32 bytes each).
        let pipeline = fixture.makePipeline(memoryCacheLimit: 64)
        let urls = (1...3).map { PipelineFixture.url("photos/\($0).png") }
        for url in urls { _ = try await pipeline.image(for: url) }
        #expect(pipeline.cachedImage(for: urls[0]) == nil)
        #expect(pipeline.cachedImage(for: urls[1]) != nil)
        #expect(pipeline.cachedImage(for: urls[2]) != nil)
        #expect(pipeline.memoryCache.totalCost == 64)
    }

    // MARK: Prefetching

    /// Starts a prefetch of `url`, holds its download at the transport, and
    /// starts a load at `priority` that joins it; returns once the load
    /// waits for the prefetch's work.
    func joinPrefetch(
        priority: TaskPriority? = nil
    ) async throws -> (
        ImagePipeline, ControllableCall<RecordedRequest, StubResponse>.Invocation, Task<DecodedImage, any Error>
    ) {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        pipeline.prefetch([url])
        let call = try await held.nextCall()
        let url = self.url
        let load = Task(priority: priority) { try await pipeline.image(for: url) }
        try await pipeline.waitUntilLoading(atLeast: 2)
        return (pipeline, call, load)
    }

    @Test func aLoadJoinsAPrefetchInFlight() async throws {
        let (_, call, load) = try await joinPrefetch()
        call.resume(returning: try PipelineFixture.png())
        #expect(try await load.value == (try expected()))
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
    }

    @Test func aLoadRaisesThePriorityOfThePrefetchItJoins() async throws {
        let (_, call, load) = try await joinPrefetch(priority: .high)
        call.resume(returning: try PipelineFixture.png())
        _ = try await load.value
        // The decode ran in the prefetch's shared work, at the load's priority.
        #expect(fixture.decoder.priorities.current.count == 1)
        #expect(fixture.decoder.priorities.current.allSatisfy { $0 >= .high })
    }

    @Test func cancellingAPrefetchCancelsItsDownload() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        pipeline.prefetch([url, url])
        let call = try await held.nextCall()
        pipeline.cancelPrefetching([url])
        #expect(call.isCancelled)
        #expect(transport.requests.count == 1)
    }

    @Test func cancellingAPrefetchLeavesALoadThatJoinedIt() async throws {
        let (pipeline, call, load) = try await joinPrefetch()
        pipeline.cancelPrefetching([url])
        #expect(!call.isCancelled)
        call.resume(returning: try PipelineFixture.png())
        #expect(try await load.value == (try expected()))
    }

    @Test func prefetchFillsTheCaches() async throws {
        let directory = try TemporaryDirectory(prefix: "image-pipeline")
        let disk = try DiskImageCache(directory: directory.url, limit: 1 << 20)
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline(diskCache: disk)
        pipeline.prefetch([url])
        try await held.nextCall().resume(returning: try PipelineFixture.png())
        // The prefetch's result, awaited through the load that joins or follows it.
        let url = self.url
        #expect(try await pipeline.image(for: url) == (try expected()))
        #expect(await disk.data(for: url) == (try Fixture.data("rgb.png")))
        #expect(transport.requests.count == 1)
    }
}
