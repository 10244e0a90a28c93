import Foundation
import Observation

/// The state behind an `AsyncImage`-like view: loads one ``ImageRequest``
/// at a time through an ``ImagePipeline`` and publishes its ``phase``.
///
/// The load runs in the caller's task, so the view's lifetime bounds it:
///
/// ```swift
/// struct PhotoView: View {
///     let url: URL?
///     @State private var loader: ImageLoader
///
///     init(url: URL?, pipeline: ImagePipeline) {
///         self.url = url
///         _loader = State(initialValue: ImageLoader(pipeline: pipeline))
///     }
///
///     var body: some View {
///         PhaseView(phase: loader.phase)          // placeholder, image or error
///             .task(id: url) { await loader.load(url) }
///     }
/// }
/// ```
///
/// - An image already in the memory cache shows at once, with no `.empty`
///   in between (no flicker when a list cell is reused).
/// - A new ``load(_:)-(ImageRequest?)`` supersedes the previous one: the
///   old result is dropped and its load cancelled (the download goes on if
///   someone else awaits it).
/// - A cancelled load puts the phase back to ``ImagePhase/empty``; it shows
///   no error.
@MainActor
@Observable
public final class ImageLoader {
    /// The current state of the load.
    public private(set) var phase: ImagePhase = .empty
    /// The request ``phase`` belongs to: the one last asked for with
    /// ``load(_:)-(ImageRequest?)``. A view that shows one image among many
    /// checks it before drawing the phase, so that a new selection never
    /// shows the previous image.
    public private(set) var request: ImageRequest?

    /// The URL ``phase`` belongs to: ``request``'s. A view that may ask for
    /// a new size of the same image (after a resize) compares this instead
    /// of ``request``, and keeps showing the old size until the new one
    /// arrives.
    public var url: URL? { request?.url }

    @ObservationIgnored private let pipeline: ImagePipeline
    /// Counts loads, so a finished load can tell whether it was superseded.
    @ObservationIgnored private var generation: UInt64 = 0
    @ObservationIgnored private var current: Task<DecodedImage, any Error>?

    /// Creates a loader with nothing loaded.
    public init(pipeline: ImagePipeline) {
        self.pipeline = pipeline
    }

    /// Loads `request` (`nil` clears the phase), returning when the phase
    /// is final: ``ImagePhase/success(_:)``, ``ImagePhase/failure(_:)``, or
    /// ``ImagePhase/empty`` when the calling task was cancelled or a newer
    /// load took over.
    ///
    /// Give the request the size the view shows the image at
    /// (``ImageRequest/maximumPixelSize``), and its processors (see
    /// ``ImagePipeline/image(for:)-(ImageRequest)``):
    ///
    /// ```swift
    /// .task(id: photo.url) { await loader.load(ImageRequest(photo.url, size: 300)) }
    /// ```
    public func load(_ request: ImageRequest?) async {
        generation &+= 1
        let loadID = generation
        current?.cancel()
        current = nil
        self.request = request
        guard let request else {
            phase = .empty
            return
        }
        if let cached = pipeline.cachedImage(for: request) {
            phase = .success(cached)
            return
        }
        phase = .empty
        let pipeline = self.pipeline
        // A task of its own, so that a newer load can cancel this one; the
        // caller's cancellation is forwarded to it.
        let task = Task {
            try await pipeline.image(for: request)
        }
        current = task
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        guard loadID == generation else { return }
        current = nil
        switch result {
        case let .success(image):
            phase = .success(image)
        case .failure(is CancellationError):
            phase = .empty
        case let .failure(error as ImageError):
            phase = .failure(error)
        case let .failure(error):
            phase = .failure(.transport(String(describing: error)))
        }
    }

    /// Loads the full-size image at `url` (`nil` clears the phase):
    /// ``load(_:)-(ImageRequest?)`` of `ImageRequest(url)`.
    ///
    /// ```swift
    /// .task(id: url) { await loader.load(url) }
    /// ```
    ///
    /// The request overload is preferred, so `load(nil)` is not ambiguous.
    @_disfavoredOverload
    public func load(_ url: URL?) async {
        await load(url.map { ImageRequest($0) })
    }
}
