import NIOPosix

/// The image files of one server, made on first request and kept.
///
/// Concurrent first requests for a name share one render: the first starts
/// it as a task and records it, later ones await the same task. Renders run
/// off the actor, so a large picture does not hold up other names, and on
/// NIO's blocking thread pool rather than Swift's cooperative pool: a render
/// is seconds of plain computation, and an app embedding the server would
/// otherwise find its own tasks (timers, decoding) waiting behind it.
actor ImageStore {
    private var renders: [String: Task<EncodedImage?, Never>] = [:]
    private let onRender: @Sendable (String) -> Void

    /// `onRender` is called with a file's name each time one is made.
    init(onRender: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onRender = onRender
    }

    /// The file `recipe` makes; nil if it could not be made (which the
    /// catalogue's fixed sizes rule out).
    func image(_ recipe: ImageRecipe) async -> EncodedImage? {
        if let render = renders[recipe.name] { return await render.value }
        let onRender = self.onRender
        // Detached: rendering is plain computation that should neither run on
        // this actor nor stop when the first requester goes away, since
        // others may be waiting for it.
        let render = Task.detached {
            onRender(recipe.name)
            return try? await NIOThreadPool.singleton.runIfActive { try recipe.make() }
        }
        renders[recipe.name] = render
        return await render.value
    }
}
