import Foundation

/// What to load: an image's URL, the size to decode it at, the processors to
/// run on it, how soon to download it and which caches may answer.
///
/// One value travels whole: to ``ImagePipeline/image(for:)-(ImageRequest)``,
/// ``ImagePipeline/cachedImage(for:)-(ImageRequest)``,
/// ``ImagePipeline/prefetch(_:)-([ImageRequest])`` and
/// ``ImageLoader/load(_:)-(ImageRequest?)``, and the memory cache's key is
/// derived from it (``ImageCacheKey/init(_:)``). Every property has a
/// default, so the common request is only a URL, and the pipeline takes a
/// bare URL as well:
///
/// ```swift
/// let photo = try await pipeline.image(for: url)
/// let thumbnail = try await pipeline.image(for: ImageRequest(url, size: 300))
/// let avatar = try await pipeline.image(
///     for: ImageRequest(member.photoURL, size: 128, processors: [.cropToSquare], priority: .high)
/// )
/// ```
///
/// Two requests are equal when every property is; two that differ only in
/// ``priority`` or ``cachePolicy`` still stand for the same image and share
/// one place in the memory cache.
public struct ImageRequest: Hashable, Sendable {
    /// The image's URL: absolute, or relative to the pipeline's client's base URL.
    public var url: URL
    /// The most pixels on the image's longer side: it is decoded to fit
    /// (a thumbnail, which costs a fraction of the full image's time and
    /// memory), never enlarged. `nil`, the default, decodes the full size.
    ///
    /// Pass the size the view shows the image at. JPEGs are decoded at a
    /// reduced scale, other formats whole and then shrunk once (see
    /// ``ImageDecoding/decode(_:limits:maximumPixelSize:)``). Sizes below 1
    /// count as 1.
    public var maximumPixelSize: Int?
    /// Steps run in order on the decoded image, such as a crop; their result
    /// is what the memory cache keeps for this request. Empty by default.
    public var processors: [ImageProcessor]
    /// How soon the download starts when downloads wait for a slot
    /// (``ImagePipeline/Configuration/maximumConcurrentDownloads``);
    /// ``ImageRequestPriority/normal`` by default.
    public var priority: ImageRequestPriority
    /// Which caches may answer, and whether the network may;
    /// ``CachePolicy/useCache`` by default.
    public var cachePolicy: CachePolicy

    /// A request for the image at `url`.
    ///
    /// - Parameters:
    ///   - url: The image's URL: absolute, or relative to the client's base URL.
    ///   - size: The most pixels on the image's longer side (``maximumPixelSize``);
    ///     `nil` for the full size.
    ///   - processors: Steps run in order on the decoded image.
    ///   - priority: How soon the download starts when downloads wait for a slot.
    ///   - cachePolicy: Which caches may answer, and whether the network may.
    public init(
        _ url: URL,
        size: Int? = nil,
        processors: [ImageProcessor] = [],
        priority: ImageRequestPriority = .normal,
        cachePolicy: CachePolicy = .useCache
    ) {
        self.url = url
        self.maximumPixelSize = size
        self.processors = processors
        self.priority = priority
        self.cachePolicy = cachePolicy
    }
}

extension ImageRequest {
    /// Which caches may answer a request, and whether the network may.
    ///
    /// ```swift
    /// // Pull to refresh: the server's current image, and the caches updated.
    /// let fresh = try await pipeline.image(for: ImageRequest(url, cachePolicy: .reloadIgnoringCachedData))
    /// // Offline: what the caches have, or ImageError.notCached at once.
    /// let cached = try await pipeline.image(for: ImageRequest(url, cachePolicy: .returnCacheDataDontLoad))
    /// ```
    public enum CachePolicy: Hashable, Sendable, CaseIterable {
        /// The memory cache, then the disk cache, then the network; what
        /// is loaded is kept in both caches. The default.
        case useCache
        /// The network only, ignoring what both caches hold; the new bytes
        /// and image replace the caches' copies for this request. Other sizes
        /// and processors of the URL keep theirs (drop them with
        /// ``MemoryImageCache/removeImages(for:)``).
        case reloadIgnoringCachedData
        /// The memory cache, then the disk cache, never the network: a
        /// request that neither holds fails with ``ImageError/notCached``.
        /// For showing what is already there, offline or while scrolling fast.
        case returnCacheDataDontLoad

        /// Whether the caches' copies may answer.
        var readsCaches: Bool { self != .reloadIgnoringCachedData }
        /// Whether the network may answer.
        var loads: Bool { self != .returnCacheDataDontLoad }
    }
}
