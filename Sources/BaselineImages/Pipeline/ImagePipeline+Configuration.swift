extension ImagePipeline {
    /// How an ``ImagePipeline`` caches, limits and decodes.
    ///
    /// ```swift
    /// let disk = try DiskImageCache(directory: cachesDirectory.appendingPathComponent("Images"), limit: 200 << 20)
    /// let pipeline = ImagePipeline(client: client, configuration: .init(memoryCacheLimit: 32 << 20, diskCache: disk))
    /// ```
    public struct Configuration: Sendable {
        /// The most bytes of decoded pixels kept in memory (4 bytes a pixel);
        /// 64 MiB by default.
        public var memoryCacheLimit: Int
        /// Where encoded images are kept across launches; `nil` for none.
        public var diskCache: DiskImageCache?
        /// The decoders, asked in order; the first that recognises the bytes
        /// decodes them. PNG and JPEG by default.
        public var decoders: [any ImageDecoding]
        /// The largest encoded image downloaded, in bytes; a larger response
        /// fails with ``ImageError/tooLarge(_:)`` as soon as that is known,
        /// without being received whole. 32 MiB by default.
        public var maximumDataSize: Int
        /// Limits enforced when decoding, such as the largest pixel count.
        public var limits: ImageDecodingLimits
        /// How many images download at once; the others wait, in order of
        /// ``ImageRequestPriority``. 6 by default, as browsers allow per host.
        public var maximumConcurrentDownloads: Int

        /// Creates a configuration.
        public init(
            memoryCacheLimit: Int = 64 * 1024 * 1024,
            diskCache: DiskImageCache? = nil,
            decoders: [any ImageDecoding] = [PNGDecoder(), JPEGDecoder()],
            maximumDataSize: Int = 32 * 1024 * 1024,
            limits: ImageDecodingLimits = ImageDecodingLimits(),
            maximumConcurrentDownloads: Int = 6
        ) {
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.memoryCacheLimit = memoryCacheLimit
            self.diskCache = diskCache
            self.decoders = decoders
            self.maximumDataSize = maximumDataSize
            self.limits = limits
        }
    }
}
