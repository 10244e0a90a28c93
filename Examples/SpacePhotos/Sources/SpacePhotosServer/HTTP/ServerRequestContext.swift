import Hummingbird

/// The request context of the example server: Hummingbird's basic one with a
/// body limit sized for small JSON documents, so an oversized body is
/// refused (413) before it is buffered.
public struct ServerRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, limits).
    public var coreContext: CoreRequestContextStorage

    /// The context of a request arriving from `source`.
    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// Bodies above this many bytes are refused with 413.
    public var maxUploadSize: Int { 16 * 1024 }
}
