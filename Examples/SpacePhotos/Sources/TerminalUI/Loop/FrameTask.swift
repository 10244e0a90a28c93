/// Work a frame asks for while it shows, like SwiftUI's `.task(id:)`: the
/// loop starts a task when a frame first lists its ``id``, and cancels it
/// when a frame no longer does. A task that ends is not started again until
/// its id has left the frames and come back.
///
/// ```swift
/// var frame = Frame(buffer)
/// if let url = browser.selectedPhoto?.url {
///     frame.tasks.append(FrameTask(id: "image \(url)") { await browser.loadSelectedImage() })
/// }
/// ```
public struct FrameTask: Sendable {
    /// What the task is for: the same id in the next frame keeps it running.
    public var id: String
    /// The work, run on the main actor; it should end when its task is cancelled.
    public var operation: @MainActor @Sendable () async -> Void

    /// A task named `id` that runs `operation` while frames list `id`.
    public init(id: String, operation: @escaping @MainActor @Sendable () async -> Void) {
        self.id = id
        self.operation = operation
    }
}
