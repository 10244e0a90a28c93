/// How soon an image's download starts when the pipeline already runs as
/// many as it allows (``ImagePipeline/Configuration/maximumConcurrentDownloads``):
/// waiting downloads start highest priority first, then oldest first.
///
/// Prefetches are ``low``; a cell on screen asks ``normal`` or ``high``. A
/// caller that joins a waiting download with a higher priority raises it.
public enum ImageRequestPriority: Int, Comparable, Sendable, CaseIterable {
    /// Images that may be needed soon (prefetches).
    case low
    /// Images on screen.
    case normal
    /// The image the user is looking at.
    case high

    /// Whether `lhs` starts after `rhs`.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
