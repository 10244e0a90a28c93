import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import Logging

/// Loads images by URL: from memory, from disk, or from the network, decoded
/// off the main actor.
///
/// ```swift
/// let pipeline = ImagePipeline(client: HTTPClient(baseURL: apiURL))
/// let image = try await pipeline.image(for: photo.url)
/// ```
///
/// - Concurrent requests for one URL share a single download and a single
///   decode. Each caller can be cancelled on its own (it throws
///   `CancellationError` at once); the shared work stops only when every
///   caller waiting for it has been cancelled.
/// - Decoded images are kept in a ``MemoryImageCache`` bounded by bytes;
///   encoded ones, if the configuration has one, in a ``DiskImageCache``
///   that survives restarts.
/// - ``prefetch(_:)`` fills the caches at low priority; a later
///   ``image(for:maximumPixelSize:processors:)`` joins a prefetch in flight instead of downloading again,
///   and raises it to its own priority.
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
        var tasks: [URL: Prefetch] = [:]
        var nextID: UInt64 = 0
    }

    /// The client images are downloaded with.
    public let client: HTTPClient
    /// The pipeline's settings.
    public let configuration: Configuration
    /// The decoded images in memory.
    public let memoryCache: MemoryImageCache

    /// Download-and-decode runs, one per URL and size in flight.
    private let images = TaskCoalescer<ImageCacheKey, DecodedImage>()
    /// Encoded-data runs (disk or network), shared by ``image(for:maximumPixelSize:processors:)`` and ``data(for:)``.
    private let downloads = TaskCoalescer<URL, Data>()
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

    /// The decoded image at `url`: from the memory cache, else the disk
    /// cache, else the network. Concurrent calls for the same URL share the
    /// work.
    ///
    /// With `maximumPixelSize`, the image is decoded to fit that many pixels
    /// on its longer side: a thumbnail, which costs a fraction of the time
    /// and memory of the full image (JPEGs are decoded at a reduced scale;
    /// see ``ImageDecoding/decode(_:limits:maximumPixelSize:)``). Each size
    /// has its own place in the memory cache; the download, and the disk
    /// cache's copy of the original, are shared by all sizes of a URL, and a
    /// full image already in memory is shrunk rather than loaded again.
    ///
    /// `processors` run in order on the decoded image (see ``ImageProcessor``),
    /// and their result is what the memory cache keeps for this URL, size
    /// and processors.
    ///
    /// ```swift
    /// let thumbnail = try await pipeline.image(for: photo.url, maximumPixelSize: 300)
    /// ```
    ///
    /// - Throws: ``ImageError``, or `CancellationError` when the calling task
    ///   is cancelled.
    public func image(
        for url: URL,
        maximumPixelSize: Int? = nil,
        processors: [ImageProcessor] = []
    ) async throws -> DecodedImage {
        try await image(for: url, maximumPixelSize: maximumPixelSize, processors: processors, priority: .normal)
    }

    /// The decoded image at `url`, as ``image(for:maximumPixelSize:processors:)``
    /// gives it, downloaded at `priority` when downloads wait for a slot
    /// (``Configuration/maximumConcurrentDownloads``). Joining a waiting
    /// download of the same URL raises it to `priority` (a download that
    /// is still reading the disk cache, not yet in line, keeps its own).
    ///
    /// ```swift
    /// let hero = try await pipeline.image(for: photo.url, maximumPixelSize: nil, processors: [], priority: .high)
    /// ```
    public func image(
        for url: URL,
        maximumPixelSize: Int?,
        processors: [ImageProcessor],
        priority: ImageRequestPriority
    ) async throws -> DecodedImage {
        let key = ImageCacheKey(url: url, maximumPixelSize: maximumPixelSize, processors: processors)
        if let cached = memoryCache.image(for: key) { return cached }
        downloadQueue.raise(url, to: priority)
        return try await images.value(for: key) { [self] in
            try await loadImage(key, processors: processors, priority: priority)
        }
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
        try await data(for: url, priority: .normal)
    }

    private func data(for url: URL, priority: ImageRequestPriority) async throws -> Data {
        downloadQueue.raise(url, to: priority)
        return try await downloads.value(for: url) { [self] in try await loadData(url, priority: priority) }
    }

    /// The image for `url` (at `maximumPixelSize`, if given) if it is in the
    /// memory cache, without waiting: what a view shows at once, before
    /// starting a load.
    public func cachedImage(
        for url: URL,
        maximumPixelSize: Int? = nil,
        processors: [ImageProcessor] = []
    ) -> DecodedImage? {
        memoryCache.image(for: ImageCacheKey(url: url, maximumPixelSize: maximumPixelSize, processors: processors))
    }

    // MARK: Prefetching

    /// Starts loading `urls` at low priority into the caches, for images
    /// about to be shown (the next rows of a list). URLs already in memory
    /// or being prefetched are skipped; errors are ignored. A prefetch that
    /// an ``image(for:maximumPixelSize:processors:)`` joins runs on at that caller's priority.
    public func prefetch(_ urls: [URL]) {
        for url in urls where !memoryCache.contains(url) {
            prefetches.withLock { state in
                guard state.tasks[url] == nil else { return }
                state.nextID += 1
                let id = state.nextID
                // Started under the lock, so that it is registered before it
                // can finish and unregister itself.
                let task = Task(priority: .low) { [self] in
                    do {
                        _ = try await image(for: url, maximumPixelSize: nil, processors: [], priority: .low)
                    } catch is CancellationError {
                        // cancelPrefetching
                    } catch {
                        logger.debug("Prefetch failed", metadata: ["url": "\(url)", "error": "\(error)"])
                    }
                    prefetches.withLock { state in
                        if state.tasks[url]?.id == id { state.tasks[url] = nil }
                    }
                }
                state.tasks[url] = Prefetch(id: id, task: task)
            }
        }
    }

    /// Stops prefetching `urls`. A load of the same URL that someone awaits
    /// through ``image(for:maximumPixelSize:processors:)`` goes on.
    public func cancelPrefetching(_ urls: [URL]) {
        let cancelled = prefetches.withLock { state in
            urls.compactMap { state.tasks.removeValue(forKey: $0)?.task }
        }
        for task in cancelled { task.cancel() }
    }

    // MARK: Caches

    /// Empties the memory cache and the disk cache, if any.
    public func removeAllCachedImages() async {
        memoryCache.removeAll()
        await configuration.diskCache?.removeAll()
    }

    // MARK: Testing

    /// Suspends until at least `count` callers of ``image(for:maximumPixelSize:processors:)`` wait for
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

    /// The shared run behind ``image(for:maximumPixelSize:processors:)``.
    private func loadImage(
        _ key: ImageCacheKey,
        processors: [ImageProcessor],
        priority: ImageRequestPriority
    ) async throws -> DecodedImage {
        // A run that just finished may have filled the cache after the caller looked.
        if let cached = memoryCache.image(for: key) { return cached }
        let url = key.url
        // The full image in memory (a prefetch, another view): shrinking and
        // processing it is cheaper than downloading and decoding again.
        if !key.isOriginal, let full = memoryCache.image(for: url) {
            let image = Self.process(key.maximumPixelSize.map(full.resized(toFit:)) ?? full, with: processors)
            memoryCache.insert(image, for: key)
            return image
        }
        let data = try await data(for: url, priority: priority)
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
        image = Self.process(image, with: processors)
        memoryCache.insert(image, for: key)
        return image
    }

    private static func process(_ image: DecodedImage, with processors: [ImageProcessor]) -> DecodedImage {
        processors.reduce(image) { image, processor in processor(image) }
    }

    /// The shared run behind ``data(for:)``.
    private func loadData(_ url: URL, priority: ImageRequestPriority) async throws -> Data {
        if let disk = configuration.diskCache, let data = await disk.data(for: url) {
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
