import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import Logging

/// Loads images: from memory, from disk, or from the network, decoded off
/// the main actor.
///
/// ```swift
/// let pipeline = ImagePipeline(client: HTTPClient(baseURL: apiURL))
/// let image = try await pipeline.image(for: photo.url)
/// let thumbnail = try await pipeline.image(for: ImageRequest(photo.url, size: 300))
/// ```
///
/// An ``ImageRequest`` says what to load (URL, size, processors) and how
/// (priority, cache policy); a bare URL is a request with the defaults.
///
/// - Concurrent requests for one image share a single download and a single
///   decode; requests for other sizes of the same URL share the download.
///   Each caller can be cancelled on its own (it throws `CancellationError`
///   at once); the shared work stops only when every caller waiting for it
///   has been cancelled.
/// - Decoded images are kept in a ``MemoryImageCache`` bounded by bytes;
///   encoded ones, if the configuration has one, in a ``DiskImageCache``
///   that survives restarts.
/// - ``prefetch(_:)-([ImageRequest])`` fills the caches at low priority; a
///   later ``image(for:)-(ImageRequest)`` joins a prefetch in flight instead
///   of downloading again, and raises it to its own priority.
/// - At most ``Configuration/maximumConcurrentDownloads`` images download at
///   once; the others wait, the highest ``ImageRequestPriority`` first, so
///   an image on screen does not queue behind a page of prefetches.
///
/// Errors are ``ImageError``, except cancellation, which is `CancellationError`.
///
/// Requests go through the client, so its middleware (authentication,
/// logging, retries) applies. An absolute image URL is requested at its own
/// host; a relative one is resolved against the client's base URL. Query
/// items are passed as `Request.query`, so the client re-encodes them (a
/// literal `+` in a query is sent as `+`, which some servers read as a space).
public final class ImagePipeline: Sendable {
    /// A prefetch in flight, with an id so a finished one does not remove a newer one.
    private struct Prefetch {
        let id: UInt64
        let task: Task<Void, Never>
    }

    private struct PrefetchState {
        /// By request, at the prefetches' priority.
        var tasks: [ImageRequest: Prefetch] = [:]
        var nextID: UInt64 = 0
    }

    /// One run of ``image(for:)-(ImageRequest)``: requests join it when they
    /// ask for the same image with the same cache policy (a reload never
    /// joins a run that may answer from the caches, nor the reverse).
    private struct ImageRun: Hashable, Sendable {
        let key: ImageCacheKey
        let cachePolicy: ImageRequest.CachePolicy
    }

    /// One run of encoded data: from the disk cache or the network, or from
    /// the network only (a reload).
    private struct DataRun: Hashable, Sendable {
        let url: URL
        let readsDiskCache: Bool
    }

    /// The client images are downloaded with.
    public let client: HTTPClient
    /// The pipeline's settings.
    public let configuration: Configuration
    /// The decoded images in memory.
    public let memoryCache: MemoryImageCache

    /// Download-and-decode runs, one per image and cache policy in flight.
    private let images = TaskCoalescer<ImageRun, DecodedImage>()
    /// Encoded-data runs (disk or network), shared by ``image(for:)-(ImageRequest)`` and ``data(for:)``.
    private let downloads = TaskCoalescer<DataRun, Data>()
    private let prefetches = LockedValue(PrefetchState())
    /// Network loads in order of priority, a few at a time.
    private let downloadQueue: DownloadQueue
    private let logger = Logger(label: "baseline.image-pipeline")

    /// The `Accept` header of image requests: the formats decoded by default first.
    private static let acceptedTypes = "image/png, image/jpeg, image/*;q=0.8"

    /// Creates a pipeline that downloads through `client`.
    public init(client: HTTPClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.memoryCache = MemoryImageCache(limit: configuration.memoryCacheLimit)
        self.downloadQueue = DownloadQueue(limit: configuration.maximumConcurrentDownloads)
    }

    // MARK: Loading

    /// The decoded image `request` asks for: from the memory cache, else the
    /// disk cache, else the network, as its ``ImageRequest/cachePolicy``
    /// allows. Concurrent calls for the same image share the work.
    ///
    /// With a ``ImageRequest/maximumPixelSize``, the image is decoded to fit
    /// that many pixels on its longer side: a thumbnail, which costs a
    /// fraction of the time and memory of the full image (JPEGs are decoded
    /// at a reduced scale; see ``ImageDecoding/decode(_:limits:maximumPixelSize:)``).
    /// ``ImageRequest/processors`` run in order on the decoded image (see
    /// ``ImageProcessor``). Each size and list of processors has its own
    /// place in the memory cache (``ImageCacheKey``); the download, and the
    /// disk cache's copy of the original, are shared by all of a URL's, and a
    /// full image already in memory is shrunk and processed rather than
    /// loaded again.
    ///
    /// The download waits for a slot at the request's ``ImageRequest/priority``
    /// (``Configuration/maximumConcurrentDownloads``). A request that joins a
    /// waiting download of the same URL raises it to its own priority (a
    /// download still reading the disk cache, not yet in line, keeps its own).
    ///
    /// ```swift
    /// let thumbnail = try await pipeline.image(for: ImageRequest(photo.url, size: 300))
    /// let hero = try await pipeline.image(for: ImageRequest(photo.url, priority: .high))
    /// ```
    ///
    /// - Throws: ``ImageError`` (``ImageError/notCached`` when the policy is
    ///   ``ImageRequest/CachePolicy/returnCacheDataDontLoad`` and neither
    ///   cache holds the image), or `CancellationError` when the calling task
    ///   is cancelled.
    public func image(for request: ImageRequest) async throws -> DecodedImage {
        let key = ImageCacheKey(request)
        let policy = request.cachePolicy
        if policy.readsCaches, let cached = memoryCache.image(for: key) { return cached }
        if policy.loads { downloadQueue.raise(request.url, to: request.priority) }
        return try await images.value(for: ImageRun(key: key, cachePolicy: policy)) { [self] in
            try await loadImage(request, key: key)
        }
    }

    /// The full-size image at `url`, with the default priority and cache
    /// policy: ``image(for:)-(ImageRequest)`` of `ImageRequest(url)`.
    ///
    /// ```swift
    /// let image = try await pipeline.image(for: photo.url)
    /// ```
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task
    ///   is cancelled.
    public func image(for url: URL) async throws -> DecodedImage {
        try await image(for: ImageRequest(url))
    }

    /// The encoded bytes of the image at `url`, from the disk cache or the
    /// network (shared with any load of the same URL in flight), checked to
    /// be in a format one of the decoders recognises. Use it to save or share
    /// the original file.
    ///
    /// ```swift
    /// let original = try await pipeline.data(for: photo.url)
    /// try original.write(to: destination)
    /// ```
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task
    ///   is cancelled.
    public func data(for url: URL) async throws -> Data {
        try await data(for: url, priority: .normal, readsDiskCache: true)
    }

    private func data(for url: URL, priority: ImageRequestPriority, readsDiskCache: Bool) async throws -> Data {
        downloadQueue.raise(url, to: priority)
        return try await downloads.value(for: DataRun(url: url, readsDiskCache: readsDiskCache)) { [self] in
            try await loadData(url, priority: priority, readsDiskCache: readsDiskCache)
        }
    }

    /// The image `request` asks for if it is in the memory cache, without
    /// waiting: what a view shows at once, before starting a load. Always
    /// `nil` for a request that ignores the caches
    /// (``ImageRequest/CachePolicy/reloadIgnoringCachedData``).
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard request.cachePolicy.readsCaches else { return nil }
        return memoryCache.image(for: ImageCacheKey(request))
    }

    /// The full-size image at `url` if it is in the memory cache, without
    /// waiting: ``cachedImage(for:)-(ImageRequest)`` of `ImageRequest(url)`.
    public func cachedImage(for url: URL) -> DecodedImage? {
        cachedImage(for: ImageRequest(url))
    }

    // MARK: Prefetching

    /// Starts loading `requests` at low priority into the caches, for images
    /// about to be shown (the next rows of a list): at the size and with the
    /// processors the rows will ask for, so their
    /// ``image(for:)-(ImageRequest)`` finds them in memory.
    ///
    /// Prefetches wait behind every other download, whatever the requests'
    /// own ``ImageRequest/priority``. Images already in memory and requests
    /// already being prefetched are skipped; errors are ignored. A prefetch
    /// that an ``image(for:)-(ImageRequest)`` joins runs on at that caller's
    /// priority.
    ///
    /// ```swift
    /// pipeline.prefetch(nextRows.map { ImageRequest($0.photoURL, size: 300) })
    /// ```
    public func prefetch(_ requests: [ImageRequest]) {
        for request in requests.map(Self.prefetching) {
            if request.cachePolicy.readsCaches, memoryCache.contains(ImageCacheKey(request)) { continue }
            prefetches.withLock { state in
                guard state.tasks[request] == nil else { return }
                state.nextID += 1
                let id = state.nextID
                // Started under the lock, so that it is registered before it
                // can finish and unregister itself.
                let task = Task(priority: .low) { [self] in
                    do {
                        _ = try await image(for: request)
                    } catch is CancellationError {
                        // cancelPrefetching
                    } catch {
                        logger.debug("Prefetch failed", metadata: ["url": "\(request.url)", "error": "\(error)"])
                    }
                    prefetches.withLock { state in
                        if state.tasks[request]?.id == id { state.tasks[request] = nil }
                    }
                }
                state.tasks[request] = Prefetch(id: id, task: task)
            }
        }
    }

    /// Starts loading the full-size images at `urls` at low priority into
    /// the caches: ``prefetch(_:)-([ImageRequest])`` of their requests.
    public func prefetch(_ urls: [URL]) {
        prefetch(urls.map { ImageRequest($0) })
    }

    /// Stops prefetching `requests` (matched whatever their priority). A
    /// load of the same image that someone awaits through
    /// ``image(for:)-(ImageRequest)`` goes on.
    public func cancelPrefetching(_ requests: [ImageRequest]) {
        let cancelled = prefetches.withLock { state in
            requests.map(Self.prefetching).compactMap { state.tasks.removeValue(forKey: $0)?.task }
        }
        for task in cancelled { task.cancel() }
    }

    /// Stops prefetching the full-size images at `urls`:
    /// ``cancelPrefetching(_:)-([ImageRequest])`` of their requests.
    public func cancelPrefetching(_ urls: [URL]) {
        cancelPrefetching(urls.map { ImageRequest($0) })
    }

    /// `request` as a prefetch runs it: at low priority.
    private static func prefetching(_ request: ImageRequest) -> ImageRequest {
        var request = request
        request.priority = .low
        return request
    }

    // MARK: Caches

    /// Empties the memory cache and the disk cache, if any.
    public func removeAllCachedImages() async {
        memoryCache.removeAll()
        await configuration.diskCache?.removeAll()
    }

    // MARK: Testing

    /// Suspends until at least `count` callers of ``image(for:)-(ImageRequest)`` wait for
    /// shared work in flight (callers served from memory never wait).
    package func waitUntilLoading(atLeast count: Int) async throws {
        try await images.waitUntilWaiting(atLeast: count)
    }

    /// Suspends until at least `count` downloads wait for a free slot
    /// (``Configuration/maximumConcurrentDownloads``).
    package func waitUntilDownloadsQueue(atLeast count: Int) async throws {
        try await downloadQueue.waitUntilWaiting(atLeast: count)
    }

    /// Suspends until at least `count` waiters (``data(for:)`` callers and
    /// image loads) wait for encoded data in flight.
    package func waitUntilLoadingData(atLeast count: Int) async throws {
        try await downloads.waitUntilWaiting(atLeast: count)
    }

    // MARK: Work

    /// The shared run behind ``image(for:)-(ImageRequest)``.
    private func loadImage(_ request: ImageRequest, key: ImageCacheKey) async throws -> DecodedImage {
        let url = request.url
        let policy = request.cachePolicy
        if policy.readsCaches {
            // A run that just finished may have filled the cache after the caller looked.
            if let cached = memoryCache.image(for: key) { return cached }
            // The full image in memory (a prefetch, another view): shrinking and
            // processing it is cheaper than downloading and decoding again.
            if !key.isOriginal, let full = memoryCache.image(for: url) {
                let image = Self.process(
                    key.maximumPixelSize.map(full.resized(toFit:)) ?? full,
                    with: request.processors
                )
                memoryCache.insert(image, for: key)
                return image
            }
        }
        let data: Data
        if policy.loads {
            data = try await self.data(for: url, priority: request.priority, readsDiskCache: policy.readsCaches)
        } else if let disk = configuration.diskCache, let cached = await disk.data(for: url) {
            data = cached
        } else {
            throw ImageError.notCached
        }
        try Task.checkCancellation()
        var image: DecodedImage
        do {
            image = try decode(data, maximumPixelSize: key.maximumPixelSize)
        } catch let error as ImageError {
            // Bytes that sniffed right but do not decode would fail the same
            // way from the disk forever: forget them. (An image over the pixel
            // limit stays: another configuration may accept it.)
            if case .corruptImage = error { await configuration.diskCache?.remove(for: url) }
            throw error
        }
        image = Self.process(image, with: request.processors)
        memoryCache.insert(image, for: key)
        return image
    }

    private static func process(_ image: DecodedImage, with processors: [ImageProcessor]) -> DecodedImage {
        processors.reduce(image) { image, processor in processor(image) }
    }

    /// The shared run behind ``data(for:)``.
    private func loadData(_ url: URL, priority: ImageRequestPriority, readsDiskCache: Bool) async throws -> Data {
        if readsDiskCache, let disk = configuration.diskCache, let data = await disk.data(for: url) {
            return data
        }
        let (data, mediaType) = try await downloadQueue.withSlot(for: url, priority: priority) {
            try await download(url)
        }
        guard configuration.decoders.contains(where: { $0.canDecode(data) }) else {
            throw ImageError.unsupportedImage(mediaType: mediaType)
        }
        try Task.checkCancellation()
        await configuration.diskCache?.store(data, for: url)
        return data
    }

    private func decode(_ data: Data, maximumPixelSize: Int?) throws -> DecodedImage {
        guard let maximumPixelSize else { return try configuration.decoders.decode(data, limits: configuration.limits) }
        return try configuration.decoders.decode(data, limits: configuration.limits, maximumPixelSize: maximumPixelSize)
    }

    /// The response body and its `Content-Type`.
    private func download(_ url: URL) async throws -> (Data, String?) {
        let request = Self.request(for: url, maximumSize: configuration.maximumDataSize)
        do {
            let response = try await client.send(request)
            return (response.body, response.headerFields[.contentType])
        } catch let error as CancellationError {
            throw error
        } catch let error as HTTPClientError {
            switch error {
            case let .unacceptableStatus(head, _):
                throw ImageError.badStatus(head.status.code)
            case let .responseTooLarge(limit):
                throw ImageError.tooLarge("The image data is larger than the limit of \(limit) bytes")
            default:
                throw ImageError.transport(error.description)
            }
        } catch {
            // Middleware may throw its own errors.
            throw Task.isCancelled ? CancellationError() : ImageError.transport(String(describing: error))
        }
    }

    /// A GET for `url`: an absolute URL as it is (query items apart, as
    /// `Request` wants them), a relative one against the client's base URL.
    static func request(for url: URL, maximumSize: Int) -> Request<Data> {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var withoutQuery = components
        withoutQuery?.query = nil
        withoutQuery?.fragment = nil
        let path: String
        if url.scheme != nil, url.host != nil, let absolute = withoutQuery?.url?.absoluteString {
            path = absolute
        } else {
            path = withoutQuery?.path ?? url.path
        }
        return Request<Data>(
            method: .get,
            path: path,
            query: components?.queryItems ?? [],
            headerFields: [.accept: acceptedTypes],
            acceptableStatusCodes: 200..<300,
            maximumResponseSize: maximumSize
        )
    }
}
