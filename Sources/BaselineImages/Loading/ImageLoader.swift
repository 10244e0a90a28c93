import Foundation
import Observation

/// The state behind an `AsyncImage`-like view: loads one URL at a time
/// through an ``ImagePipeline`` and publishes its ``phase``.
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
/// - A new ``load(_:maximumPixelSize:processors:)`` supersedes the previous one: the old result is
///   dropped and its load cancelled (the download goes on if someone else
///   awaits it).
/// - A cancelled load puts the phase back to ``ImagePhase/empty``; it shows
///   no error.
@MainActor
@Observable
public final class ImageLoader {
    /// The current state of the load.
    public private(set) var phase: ImagePhase = .empty
    /// The URL ``phase`` belongs to: the one last asked for with ``load(_:maximumPixelSize:processors:)``.
    /// A view that shows one image among many checks it before drawing the
    /// phase, so that a new selection never shows the previous image.
    public private(set) var url: URL?

    @ObservationIgnored private let pipeline: ImagePipeline
    /// Counts loads, so a finished load can tell whether it was superseded.
    @ObservationIgnored private var generation: UInt64 = 0
    @ObservationIgnored private var current: Task<DecodedImage, any Error>?

    /// Creates a loader with nothing loaded.
    public init(pipeline: ImagePipeline) {
        self.pipeline = pipeline
    }

    /// Loads `url` (`nil` clears the phase), returning when the phase is
    /// final: ``ImagePhase/success(_:)``, ``ImagePhase/failure(_:)``, or
    /// ``ImagePhase/empty`` when the calling task was cancelled or a newer
    /// load took over.
    ///
    /// With `maximumPixelSize`, the image is decoded to fit that many pixels
    /// on its longer side (see ``ImagePipeline/image(for:maximumPixelSize:processors:)``):
    /// pass the size the view shows it at. `processors` run on the decoded
    /// image (see ``ImageProcessor``).
    public func load(_ url: URL?, maximumPixelSize: Int? = nil, processors: [ImageProcessor] = []) async {
        generation &+= 1
        let loadID = generation
        current?.cancel()
        current = nil
        self.url = url
        guard let url else {
            phase = .empty
            return
        }
        if let cached = pipeline.cachedImage(for: url, maximumPixelSize: maximumPixelSize, processors: processors) {
            phase = .success(cached)
            return
        }
        phase = .empty
        let pipeline = self.pipeline
        // A task of its own, so that a newer load can cancel this one; the
        // caller's cancellation is forwarded to it.
        let task = Task {
            try await pipeline.image(for: url, maximumPixelSize: maximumPixelSize, processors: processors)
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
}
