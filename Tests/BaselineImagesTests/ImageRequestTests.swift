import BaselineHTTP
import BaselineImages
import BaselineTesting
import Foundation
import Testing

@Suite("ImageRequest: the cache key")
struct ImageRequestCacheKeyTests {
    let url = PipelineFixture.url("photos/1.png")

    @Test func aBareRequestIsTheFullSizeImageOfItsURL() {
        let request = ImageRequest(url)
        #expect(request.maximumPixelSize == nil && request.processors.isEmpty)
        #expect(request.priority == .normal && request.cachePolicy == .useCache)
        #expect(ImageCacheKey(request) == ImageCacheKey(url: url))
    }

    @Test func theURLTheSizeAndTheProcessorsMakeDistinctKeys() {
        let keys: [ImageCacheKey] = [
            ImageCacheKey(ImageRequest(url)),
            ImageCacheKey(ImageRequest(PipelineFixture.url("photos/2.png"))),
            ImageCacheKey(ImageRequest(url, size: 300)),
            ImageCacheKey(ImageRequest(url, size: 600)),
            ImageCacheKey(ImageRequest(url, processors: [.cropToSquare])),
            ImageCacheKey(ImageRequest(url, size: 300, processors: [.cropToSquare])),
            ImageCacheKey(ImageRequest(url, processors: [.cropToSquare, .resize(width: 8, height: 8)])),
            // Order matters: a resize then a crop is another image.
            ImageCacheKey(ImageRequest(url, processors: [.resize(width: 8, height: 8), .cropToSquare])),
        ]
        #expect(Set(keys).count == keys.count)
    }

    @Test(arguments: ImageRequest.CachePolicy.allCases)
    func thePriorityAndTheCachePolicyDoNotChangeTheKey(policy: ImageRequest.CachePolicy) {
        let plain = ImageRequest(url, size: 300, processors: [.cropToSquare])
        for priority in ImageRequestPriority.allCases {
            let other = ImageRequest(
                url,
                size: 300,
                processors: [.cropToSquare],
                priority: priority,
                cachePolicy: policy
            )
            #expect(ImageCacheKey(other) == ImageCacheKey(plain))
        }
    }

    @Test func requestsAreEqualWhenEveryPropertyIs() {
        let request = ImageRequest(url, size: 300, processors: [.cropToSquare])
        #expect(request == ImageRequest(url, size: 300, processors: [.cropToSquare]))
        #expect(request != ImageRequest(url, size: 300, processors: [.cropToSquare], priority: .high))
        #expect(
            request != ImageRequest(url, size: 300, processors: [.cropToSquare], cachePolicy: .returnCacheDataDontLoad)
        )
        // Processors are compared by identifier: the identifier names the output.
        let sameCrop = ImageProcessor(identifier: ImageProcessor.cropToSquare.identifier) { $0 }
        #expect(request == ImageRequest(url, size: 300, processors: [sameCrop]))
        #expect(Set([request, ImageRequest(url, size: 300, processors: [sameCrop])]).count == 1)
    }

    @Test func aSizeBelowOneIsOneInTheKey() {
        #expect(ImageCacheKey(ImageRequest(url, size: 0)) == ImageCacheKey(ImageRequest(url, size: 1)))
        #expect(ImageCacheKey(ImageRequest(url, size: 0)).maximumPixelSize == 1)
    }
}

@Suite("ImagePipeline: cache policies", .timeLimit(.minutes(1)))
struct ImageCachePolicyTests {
    let fixture = PipelineFixture()
    var transport: StubTransport { fixture.transport }
    let url = PipelineFixture.url("photos/1.png")
    let path = "/photos/1.png"

    func decoded(_ name: String) throws -> DecodedImage {
        try PNGDecoder().decode(try Fixture.data(name), limits: ImageDecodingLimits())
    }

    // MARK: useCache

    @Test func useCacheAnswersFromMemoryThenDiskThenTheNetwork() async throws {
        let directory = try TemporaryDirectory(prefix: "image-request")
        transport.on(.get, path, respond: try PipelineFixture.png())
        let request = ImageRequest(url, cachePolicy: .useCache)
        let pipeline = fixture.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
        #expect(try await pipeline.image(for: request) == (try decoded("rgb.png")))
        #expect(try await pipeline.image(for: request) == (try decoded("rgb.png")))
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1, "the second came from memory")

        let restarted = PipelineFixture()
        let fromDisk = restarted.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
        #expect(try await fromDisk.image(for: request) == (try decoded("rgb.png")))
        #expect(restarted.transport.requests.isEmpty)
    }

    // MARK: reloadIgnoringCachedData

    @Test func aReloadDownloadsAgainAndReplacesBothCachesCopies() async throws {
        let directory = try TemporaryDirectory(prefix: "image-request")
        let disk = try DiskImageCache(directory: directory.url, limit: 1 << 20)
        // The image changed on the server between the two requests.
        transport.on(.get, path, script: [try PipelineFixture.png("rgb.png"), try PipelineFixture.png("gray.png")])
        let pipeline = fixture.makePipeline(diskCache: disk)
        #expect(try await pipeline.image(for: url) == (try decoded("rgb.png")))

        let reload = ImageRequest(url, cachePolicy: .reloadIgnoringCachedData)
        #expect(pipeline.cachedImage(for: reload) == nil, "a reload never shows the cached copy")
        #expect(try await pipeline.image(for: reload) == (try decoded("gray.png")))
        #expect(transport.requests.count == 2)
        // The fresh copies replaced the old ones, for every policy that reads them.
        #expect(pipeline.cachedImage(for: url) == (try decoded("gray.png")))
        #expect(await disk.data(for: url) == (try Fixture.data("gray.png")))
    }

    @Test func aReloadDoesNotJoinALoadThatMayAnswerFromTheCaches() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let url = self.url
        let cached = Task { try await pipeline.image(for: url) }
        let first = try await held.nextCall()
        let reload = Task { try await pipeline.image(for: ImageRequest(url, cachePolicy: .reloadIgnoringCachedData)) }
        // A download of its own, though one of the same URL is in flight.
        let second = try await held.nextCall()
        first.resume(returning: try PipelineFixture.png("rgb.png"))
        second.resume(returning: try PipelineFixture.png("gray.png"))
        #expect(try await cached.value == (try decoded("rgb.png")))
        #expect(try await reload.value == (try decoded("gray.png")))
        #expect(transport.requests.count == 2)
    }

    @Test func aReloadLeavesTheOtherSizesOfTheURL() async throws {
        transport.on(.get, path, script: [try PipelineFixture.png("rgb.png"), try PipelineFixture.png("gray.png")])
        let pipeline = fixture.makePipeline()
        let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 2))
        _ = try await pipeline.image(for: ImageRequest(url, cachePolicy: .reloadIgnoringCachedData))
        #expect(pipeline.cachedImage(for: ImageRequest(url, size: 2)) == thumbnail)
        #expect(pipeline.cachedImage(for: url) == (try decoded("gray.png")))
    }

    // MARK: returnCacheDataDontLoad

    @Test func cachedOnlyFailsWithoutTouchingTheNetworkWhenNothingIsCached() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        await #expect(throws: ImageError.notCached) {
            try await pipeline.image(for: ImageRequest(url, cachePolicy: .returnCacheDataDontLoad))
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func cachedOnlyAnswersFromMemory() async throws {
        transport.on(.get, path, respond: try PipelineFixture.png())
        let pipeline = fixture.makePipeline()
        let image = try await pipeline.image(for: url)
        let cachedOnly = ImageRequest(url, cachePolicy: .returnCacheDataDontLoad)
        #expect(pipeline.cachedImage(for: cachedOnly) == image)
        #expect(try await pipeline.image(for: cachedOnly) == image)
        // A thumbnail shrunk from the full image in memory is cached data too.
        let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 2, cachePolicy: .returnCacheDataDontLoad))
        #expect(thumbnail == image.resized(toFit: 2))
        #expect(transport.requests.count == 1)
    }

    @Test func cachedOnlyDecodesFromTheDiskAndKeepsTheImageInMemory() async throws {
        let directory = try TemporaryDirectory(prefix: "image-request")
        transport.on(.get, path, respond: try PipelineFixture.png())
        _ = try await fixture.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
            .image(for: url)

        let offline = PipelineFixture()
        let pipeline = offline.makePipeline(diskCache: try DiskImageCache(directory: directory.url, limit: 1 << 20))
        let cachedOnly = ImageRequest(url, size: 2, cachePolicy: .returnCacheDataDontLoad)
        let thumbnail = try await pipeline.image(for: cachedOnly)
        #expect(thumbnail == (try decoded("rgb.png")).resized(toFit: 2))
        #expect(pipeline.cachedImage(for: ImageRequest(url, size: 2)) == thumbnail)
        #expect(offline.transport.requests.isEmpty)
    }

    @Test func cachedOnlyDoesNotWaitForADownloadInFlight() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let url = self.url
        let load = Task { try await pipeline.image(for: url) }
        let call = try await held.nextCall()
        await #expect(throws: ImageError.notCached) {
            try await pipeline.image(for: ImageRequest(url, cachePolicy: .returnCacheDataDontLoad))
        }
        call.resume(returning: try PipelineFixture.png())
        _ = try await load.value
        let cachedOnly = ImageRequest(url, cachePolicy: .returnCacheDataDontLoad)
        #expect(try await pipeline.image(for: cachedOnly) == (try decoded("rgb.png")), "cached now")
    }
}

@Suite("ImagePipeline: prefetching by request", .timeLimit(.minutes(1)))
struct ImagePrefetchRequestTests {
    let fixture = PipelineFixture()
    var transport: StubTransport { fixture.transport }
    let url = PipelineFixture.url("photos/1.png")
    let path = "/photos/1.png"

    @Test func aPrefetchedThumbnailIsWhatTheRowLoads() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        let row = ImageRequest(url, size: 2)
        pipeline.prefetch([row])
        let call = try await held.nextCall()
        // The row appears while the prefetch downloads: it joins it.
        let load = Task { try await pipeline.image(for: row) }
        try await pipeline.waitUntilLoading(atLeast: 2)
        call.resume(returning: try PipelineFixture.png())
        let thumbnail = try await load.value
        #expect(thumbnail.width == 2)
        #expect(pipeline.cachedImage(for: row) == thumbnail)
        #expect(pipeline.cachedImage(for: url) == nil, "the full image was never asked for")
        #expect(transport.requests.count == 1)
        #expect(fixture.decoder.decodes.current == 1)
    }

    @Test func cancellingMatchesARequestWhateverItsPriority() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        pipeline.prefetch([ImageRequest(url, size: 2, priority: .high)])
        let call = try await held.nextCall()
        // Another size is another prefetch: cancelling it leaves this one.
        pipeline.cancelPrefetching([ImageRequest(url, size: 4)])
        #expect(!call.isCancelled)
        pipeline.cancelPrefetching([ImageRequest(url, size: 2)])
        #expect(call.isCancelled)
    }

    @Test func aRequestAlreadyBeingPrefetchedIsNotPrefetchedTwice() async throws {
        let held = transport.hold(.get, path)
        let pipeline = fixture.makePipeline()
        pipeline.prefetch([ImageRequest(url, size: 2), ImageRequest(url, size: 2, priority: .high)])
        let call = try await held.nextCall()
        try await pipeline.waitUntilLoading(atLeast: 1)
        // One prefetch task: cancelling it once cancels the download.
        pipeline.cancelPrefetching([ImageRequest(url, size: 2)])
        #expect(call.isCancelled)
        #expect(transport.requests.count == 1)
    }
}
